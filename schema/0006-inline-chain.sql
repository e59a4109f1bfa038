-- kwarn schema, version 6: a warning's inline chain.
-- GCC prints "In function 'chk'," and "inlined from 'caller' at a.c:18:2"
-- lines before a fortify, -Wstringop-* or -Warray-bounds warning: the
-- warning is in chk, reached from caller.  The chain is context the API
-- can return; it is no part of the identity (its line numbers would make
-- a line shift a new warning).
ALTER TABLE diagnostics ADD COLUMN inline_chain TEXT;
