import type { FastifyReply } from 'fastify';

/** Answers 201 with the new resource's address in `location`, and the resource as the body. */
export function created<T>(reply: FastifyReply, location: string, body: T): T {
  reply.status(201).header('location', location);
  return body;
}
