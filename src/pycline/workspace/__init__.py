"""The workspace: path safety, ignore rules, listing, search."""
