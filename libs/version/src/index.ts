/** Version: what this instance is and which features its settings enable. */
export * from './version.module';
export { V1VersionResponse, VersionResponse } from './version-response.dto';
export { VersionService } from './version.service';
