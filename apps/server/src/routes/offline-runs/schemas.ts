import { Type } from 'typebox';
import { Text } from '../../schemas/text.ts';

export {
  AUTH_NOTE,
  NOT_RATE_LIMITED,
  SESSION_OR_SECRET_KEY,
} from '../datasets/schemas.ts';

export const ExperimentParams = Type.Object({
  id: Text({ maxLength: 200, description: 'The experiment id, or its name' }),
});

export const RunParams = Type.Object({
  run_id: Text({ maxLength: 200, description: 'The offline run id' }),
});
