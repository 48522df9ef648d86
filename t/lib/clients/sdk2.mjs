// t9500: an @modelcontextprotocol/client 2.x client, either protocol era.
//   MODE=2026-07-28|legacy|auto node sdk2.mjs URL TOKEN READ_TOOL READ_ARGS WRITE_TOOL WRITE_ARGS
// Prints one JSON object on stdout for the test to check with jq.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token, readTool, readArgs, writeTool, writeArgs] = process.argv.slice(2);
const mode = process.env.MODE || 'auto';
const transport = new StreamableHTTPClientTransport(new URL(url), {
  authProvider: { token: async () => token },
});
const client = new Client(
  { name: 'forgemcp-t9500-sdk2', version: '1.0.0' },
  { versionNegotiation: { mode: mode === 'auto' || mode === 'legacy' ? mode : { pin: mode } } },
);
await client.connect(transport);
const out = { sdk: 'sdk2', mode, era: client.getProtocolEra(),
  protocol: client.getNegotiatedProtocolVersion() ?? null,
  server: client.getServerVersion?.() ?? null };
out.tools = (await client.listTools()).tools.map((t) => t.name);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: JSON.parse(args) });
  return { name, isError: r.isError === true, text: r.content?.[0]?.text ?? null };
};
out.read = await call(readTool, readArgs);
out.write = await call(writeTool, writeArgs);
await client.close();
console.log(JSON.stringify(out));
