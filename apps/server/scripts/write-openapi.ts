import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, openApiDocumentText } from './openapi-document.ts';

/** Writes packages/contract/openapi.json from the server (the drift test says when it is due). */
writeFileSync(OPENAPI_FILE, await openApiDocumentText());
