export { type MockedClient, mockedClient, type Reply, responseError } from './mock-client.js';
