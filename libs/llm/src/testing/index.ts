export {
  type FakeAnswer,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  type FakeMode,
  type FakeRequest,
  promptText,
  startFakeLlmServer,
} from './fake-ollama.js';
export { vocabularyEcho } from './vocabulary-echo.js';
