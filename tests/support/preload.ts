// Test preload: replaced by the database template builder once the server foundation lands.
export {};
