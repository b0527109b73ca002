export { symbolFromWire, symbolToWire } from './symbols.js';
