// An MCP client built on the official TypeScript SDK that signs its user in the way the MCP authorization spec
// describes, with nothing known in advance but the server's URL: the 401 names the protected-resource metadata, that
// names the issuer, the client registers itself there (or uses a client id given on the command line), sends its
// user's browser to the authorization endpoint, exchanges the code (PKCE) and retries with the token.
//
// The "browser" here is a fetch that does not follow redirects: the test issuer signs its test user in at once and
// redirects to the callback, whose code is read from the Location header.
//
// node signin.mjs <mcp url> <calls as JSON: [[tool, arguments], ...]> [pre-registered client id]
// Prints one JSON object a line: what happened, the tools listed and each call's structured result.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const [url, callsJson, preRegistered] = process.argv.slice(2);
const calls = JSON.parse(callsJson ?? '[]');
const REDIRECT = 'http://127.0.0.1:33418/callback';
const log = (o) => process.stdout.write(JSON.stringify(o) + '\n');

class TestUserProvider {
  constructor() {
    this.client = preRegistered ? { client_id: preRegistered } : undefined;
    this.code = undefined;
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: 'sql-agent sign-in test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none'
    };
  }
  state() {
    this.expectedState = crypto.randomUUID();
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
    log({ event: 'client', client_id: info.client_id });
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
    log({ event: 'tokens', token_type: tokens.token_type });
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    log({ event: 'authorize', url: authorizationUrl.href });
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = answer.headers.get('location');
    if (answer.status < 300 || answer.status >= 400 || !location) {
      throw new Error(`the authorization endpoint answered ${answer.status}: ${await answer.text()}`);
    }
    const back = new URL(location);
    if (back.searchParams.get('state') !== this.expectedState) throw new Error('the state came back changed');
    this.code = back.searchParams.get('code');
  }
}

const provider = new TestUserProvider();

async function connect() {
  const client = new Client({ name: 'sql-agent-signin-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  try {
    await client.connect(transport);
    return client;
  } catch (e) {
    if (!(e instanceof UnauthorizedError) || provider.code === undefined) throw e;
    log({ event: 'unauthorized' });
    await transport.finishAuth(provider.code);
    provider.code = undefined;
    const signedIn = new Client({ name: 'sql-agent-signin-test', version: '1.0.0' });
    await signedIn.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
    return signedIn;
  }
}

try {
  const client = await connect();
  log({ event: 'connected' });
  const tools = await client.listTools();
  log({ event: 'tools', names: tools.tools.map((t) => t.name) });
  for (const [name, args] of calls) {
    const result = await client.callTool({ name, arguments: args });
    log({ event: 'call', name, is_error: result.isError === true, result: result.structuredContent ?? result.content });
  }
  await client.close();
} catch (e) {
  log({ event: 'failed', message: String(e?.message ?? e) });
  process.exitCode = 1;
}
