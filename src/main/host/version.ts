// Replaced at build time would be nicer; reading package.json at runtime breaks once bundled.
export const LOUPE_VERSION = '0.1.0';
