/** Version of the REST API (spec §7) and of the OpenAPI document. */
export const apiVersion = '0.0.1';
