"""Diagnostics from real language servers (LSP) after each edit, and for `@problems`.

`servers` says which server speaks for which files, `connection` is one running server (a
pygls client), `registry` keeps them warm for a session and answers "what does the server say
about this text", within a time budget, never blocking an edit.
"""
