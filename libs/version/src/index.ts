/** Version: what this instance is and which features its settings enable. */
export * from './version.module';
export { VersionResponse } from './version-response.dto';
