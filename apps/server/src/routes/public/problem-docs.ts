import { Type } from 'typebox';
import type { App } from '../../http/app-types.ts';
import { PROBLEMS, ProblemError, type ProblemSlug } from '../../http/problems.ts';
import { problemResponses } from '../../http/responses.ts';

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string,
  );
}

/** Each problem `type` URI resolves to a page that explains it. */
export function register(app: App): void {
  app.get(
    '/problems/:slug',
    {
      schema: {
        tags: ['meta'],
        summary: 'What a problem `type` means (an HTML page per catalogue entry)',
        security: [],
        params: Type.Object({ slug: Type.String({ maxLength: 100 }) }),
        produces: ['text/html'],
        response: {
          200: {
            description: 'A page about the problem type',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...problemResponses(404),
        },
      },
    },
    async (request, reply) => {
      const slug = request.params.slug;
      if (!Object.hasOwn(PROBLEMS, slug))
        throw new ProblemError('not-found', `No problem type ${slug}`);
      const p = PROBLEMS[slug as ProblemSlug];
      reply.type('text/html; charset=utf-8');
      return `<!doctype html><html><head><title>${escapeHtml(p.title)}</title></head><body><h1>${escapeHtml(p.title)}</h1><p>HTTP status ${p.status}. Type <code>/problems/${escapeHtml(slug)}</code>.</p><p>${escapeHtml(p.about)}</p></body></html>`;
    },
  );
}
