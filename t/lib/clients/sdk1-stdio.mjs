// t9500: an @modelcontextprotocol/sdk 1.x client over stdio: it starts the
// server command itself (the way Claude Code starts a .mcp.json entry).
//   node sdk1-stdio.mjs TOOL ARGS_JSON -- COMMAND [ARGS...]
// The server inherits this process's environment.  Prints one JSON object.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const argv = process.argv.slice(2);
const [tool, args] = argv;
const sep = argv.indexOf('--');
const [command, ...cmdArgs] = argv.slice(sep + 1);
const transport = new StdioClientTransport({ command, args: cmdArgs, env: process.env,
  stderr: 'inherit' });
const client = new Client({ name: 'forgemcp-t9500-sdk1-stdio', version: '1.0.0' });
await client.connect(transport);
const out = { sdk: 'sdk1-stdio', server: client.getServerVersion() ?? null };
out.tools = (await client.listTools()).tools.map((t) => t.name);
const r = await client.callTool({ name: tool, arguments: JSON.parse(args) });
out.call = { name: tool, isError: r.isError === true, text: r.content?.[0]?.text ?? null };
await client.close();
console.log(JSON.stringify(out));
