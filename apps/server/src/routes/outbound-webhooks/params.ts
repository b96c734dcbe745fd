import { Type } from 'typebox';

export const EndpointParams = Type.Object({ id: Type.String({ description: 'The endpoint id' }) });

export const TAGS = ['webhook-endpoints'];
