-- Version 7: an unresolved call, instantiation or base class is its
-- reference with the symbol it was made from (`loose_src`), not a copy of
-- it in `edges`: they were half the edges and said nothing the reference
-- does not. ken-store's edge reads put them back as unresolved edges.
ALTER TABLE refs ADD COLUMN loose_src INTEGER;
