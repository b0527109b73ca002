export { main } from './main.js';
export { embedderFromEnv, STAGES } from './stages/index.js';
export {
  type ManifestInput,
  type SubmitOptions,
  type SubmittedJob,
  submitIndexJob,
} from './submit.js';
