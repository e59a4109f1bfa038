-- kwarn schema, version 3: what the server's queries need.
-- "Which commit of this run introduced (or fixed) warning X" seeks the
-- transitions of one identity; the primary key (commit_id, identity_id)
-- and states_identity cannot answer it without reading every state of X.
CREATE INDEX states_identity_state ON states(identity_id, state, commit_id);
