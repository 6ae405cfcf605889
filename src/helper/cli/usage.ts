import { LOCAL_HELPER_PORT } from '../../shared/schemas/local-helper.ts';

export const usage = `cartridge-helper: the Cartridge companion app. Lets the Cartridge pages you trust install,
update, repair and launch games on this computer (it listens on 127.0.0.1 only).

Usage:
  cartridge-helper [serve] [--port N]  answer the pages on 127.0.0.1:N (default ${LOCAL_HELPER_PORT}) until Ctrl-C
  cartridge-helper trust ORIGIN        let pages of ORIGIN (like https://cartridge.example) use the helper
  cartridge-helper untrust ORIGIN      stop trusting ORIGIN
  cartridge-helper trusted             list the trusted origins
  cartridge-helper workspace list      list the workspaces (folders where games are installed)
  cartridge-helper workspace add PATH  add a workspace (created if missing)
  cartridge-helper workspace remove ID forget an empty workspace (its files stay)
  cartridge-helper --version
  cartridge-helper --help

Environment: CARTRIDGE_HELPER_HOME moves the state folder (default: ~/.local/state/cartridge-helper
on Linux, ~/Library/Application Support/Cartridge Helper on macOS, %APPDATA%\\Cartridge Helper on
Windows); CARTRIDGE_HELPER_WORKSPACE sets the first workspace (default ~/Games/Cartridge).
A page is trusted only by you running  cartridge-helper trust ORIGIN: the helper never asks.

Exit codes: 0 done, 1 failed, 2 wrong usage.`;
