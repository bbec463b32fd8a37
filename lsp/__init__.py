"""The Maestro Bridge language server: speaks JSON-RPC with the editor, serves HTTP clients."""
