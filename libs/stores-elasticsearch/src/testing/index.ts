export {
  ES_SPEC_FILE,
  elasticsearchValidator,
  type MockedClient,
  mockedClient,
  type Reply,
  responseError,
  specViolation,
} from './mock-client.js';
