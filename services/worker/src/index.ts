export { main } from './main.js';
export { embedderFromEnv, STAGES } from './stages/index.js';
