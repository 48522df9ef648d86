// t9500: an @modelcontextprotocol/sdk 1.x client (legacy initialize handshake).
//   node sdk1.mjs URL TOKEN READ_TOOL READ_ARGS WRITE_TOOL WRITE_ARGS
// Prints one JSON object on stdout for the test to check with jq.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token, readTool, readArgs, writeTool, writeArgs] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: 'forgemcp-t9500-sdk1', version: '1.0.0' });
await client.connect(transport);
const out = { sdk: 'sdk1', protocol: transport.protocolVersion ?? null,
  session: transport.sessionId ?? null, server: client.getServerVersion() ?? null };
out.tools = (await client.listTools()).tools.map((t) => t.name);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: JSON.parse(args) });
  return { name, isError: r.isError === true, text: r.content?.[0]?.text ?? null };
};
out.read = await call(readTool, readArgs);
out.write = await call(writeTool, writeArgs);
await client.close();
console.log(JSON.stringify(out));
