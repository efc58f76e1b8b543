export * from './stored-event.js';
