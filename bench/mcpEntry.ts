// What mcp.bench.mjs needs of Loupe, in one bundle (one copy of each class).
export { composeWorkspace, openUserSettings } from '../src/main/workspace/compose';
export { createToolRegistry } from '../src/main/agent/tools/registry';
export { mcpTools } from '../src/main/agent/tools/mcpTool';
export { createToolContext } from '../src/main/agent/tools/context';
export { nullLogger } from '../src/main/services/log/logger';
