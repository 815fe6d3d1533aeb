// The Electron shell and the CLI find the user's config folder here; services own it.
export { defaultConfigDir } from '../services/settings/configDir';
