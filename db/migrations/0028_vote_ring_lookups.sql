-- Suspected vote rings looked up by what links accounts, not by scanning
-- the listing's votes (app/people/integrity.go, ringFor).
--
-- A vote used to read every vote cast on the listing in the last hour and
-- each voter's account, inside the vote's write transaction: on a launch
-- day with 600 votes an hour on a listing that was 46% of a vote's CPU,
-- and it grows with the listing's success (5,000 votes an hour: 5,000 rows
-- per vote, all while holding the writer). Accounts are linked by the
-- vote's network, the sign-up network or a private email domain, and must
-- be made (or confirmed) close in time: each link is now a range of one of
-- these indexes, a few rows whatever the listing's votes.
CREATE INDEX votes_listing_net ON votes(listing_id, week, net, created_at) WHERE net <> '';
CREATE INDEX users_signup_net_verified ON users(signup_net, verified_at)
  WHERE signup_net <> '' AND verified_at IS NOT NULL;
CREATE INDEX users_email_domain ON users(lower(substr(email, instr(email, '@') + 1)), created_at);
CREATE INDEX users_email_domain_verified ON users(lower(substr(email, instr(email, '@') + 1)), verified_at)
  WHERE verified_at IS NOT NULL;
