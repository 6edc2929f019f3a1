// Call a gateway RPC method with explicit operator scopes. `openclaw gateway call` cannot pick
// scopes, and a `/new` sent through chat.send needs operator.admin.
//
//   node gateway_call.mjs METHOD 'JSON_PARAMS' [scope,scope...]
//
// env: OPENCLAW_PACKAGE (the installed openclaw package directory), OPENCLAW_GATEWAY_TOKEN,
//      GATEWAY_PORT, and the usual OPENCLAW_* isolation variables.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkg = process.env.OPENCLAW_PACKAGE;
if (!pkg) throw new Error("OPENCLAW_PACKAGE is not set");
const runtime = await import(pathToFileURL(join(pkg, "dist/plugin-sdk/gateway-runtime.js")).href);
const [method, params = "{}", scopes = "operator.admin"] = process.argv.slice(2);
const result = await runtime.callGatewayFromCli(
  method,
  { port: process.env.GATEWAY_PORT, token: process.env.OPENCLAW_GATEWAY_TOKEN, timeout: "60000", json: true },
  JSON.parse(params),
  { scopes: scopes.split(",").filter(Boolean) },
);
console.log(JSON.stringify(result));
process.exit(0);
