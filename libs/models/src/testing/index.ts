export {
  type FakeEndpoint,
  type FakeOllama,
  type FakeOllamaOptions,
  type FakeReply,
  type FakeRequest,
  type FakeScript,
  fakeEmbedding,
  startFakeOllama,
} from './fake-ollama.js';
