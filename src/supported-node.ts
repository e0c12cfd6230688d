/**
 * The Node releases Sitebase runs on: package.json's `engines` ("^22.13.0 || >=24.11.0"; its
 * spec holds the two equal), and the one to install, .nvmrc's. npm only warns (EBADENGINE) on
 * another Node, and the server then started on a release past its end of life; main refuses.
 * No imports: it runs before anything else is loaded, on whatever Node that is.
 */
export const SUPPORTED_NODE = '22.13+ or 24.11+';
export const INSTALL_NODE = '22.23.3';

/** The line the entry points print for the Node `version` ("20.19.0" or "v20.19.0"), or null when it is supported. */
export function unsupportedNode(version: string): string | null {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  const supported = (major === 22 && minor >= 13) || (major === 24 && minor >= 11) || major > 24;
  if (supported) return null;
  return `Sitebase needs Node ${SUPPORTED_NODE} (package.json "engines"); this is Node ${version.replace(/^v/, '')}. Install Node ${INSTALL_NODE} (the version in .nvmrc; with nvm: nvm install) and run it again.`;
}
