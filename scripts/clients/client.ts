// A real call through openapi-fetch typed by openapi-typescript's output.
import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const base = process.argv[2];
const client = createClient<paths>({ baseUrl: base + "/api/v1" });
const { data, error, response } = await client.GET("/listings", { params: { query: { per_page: 2 } } });
if (error || !data || data.items.length !== 2 || !data.items[0].slug) {
  console.log("openapi-typescript: unexpected answer", response.status, error);
  process.exit(1);
}
const first: string = data.items[0].slug;
console.log(`openapi-typescript: search_listings -> ${data.items.length} of ${data.total} listings, first "${first}"`);
