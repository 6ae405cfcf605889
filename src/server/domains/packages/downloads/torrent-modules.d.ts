// create-torrent and bencode ship no type declarations; these cover the calls torrent.ts makes.
declare module 'create-torrent' {
  type CreateTorrentOptions = {
    name?: string;
    creationDate?: Date | number;
    createdBy?: string;
    comment?: string;
    private?: boolean;
    pieceLength?: number;
    announceList?: string[][];
    urlList?: string[];
  };
  function createTorrent(input: unknown, options: CreateTorrentOptions, callback: (error: Error | null, torrent: Uint8Array) => void): void;
  export default createTorrent;
}

declare module 'bencode' {
  const bencode: {
    encode(value: unknown): Uint8Array;
    decode(data: Uint8Array, encoding?: string): any;
  };
  export default bencode;
}
