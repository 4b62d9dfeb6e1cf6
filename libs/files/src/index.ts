/** Files: reading multipart request bodies as they stream in. */
export * from './multipart-body';
