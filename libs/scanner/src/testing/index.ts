export { bundleText } from './bundle.js';
export { commitAll, gitIn } from './git.js';
export { makeTree } from './make-tree.js';
export { SECRET_SAMPLES } from './secret-samples.js';
