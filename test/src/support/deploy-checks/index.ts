export { composeProblems } from './compose.js';
export { dockerfileProblems, dockerignoreProblems } from './dockerfile.js';
export { type CodeFacts, codeFacts, keysRead } from './facts.js';
export { k8sProblems, loadK8s } from './k8s.js';
export {
  type NatsPayloads,
  type NatsProbe,
  natsConfigFiles,
  payloadProblems,
  probeNatsConfig,
} from './nats-config.js';
export { argvOf, DEPLOY, type K8s, repoPathInImage, type Yaml } from './parsed.js';
export {
  composePolicyProblems,
  imagePinProblem,
  k8sPolicyProblems,
  SECRET_KEYS,
  type ServerNeeds,
  serverVersionProblems,
} from './policy.js';
