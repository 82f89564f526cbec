// Package redisstore is a [recap.Store] on Redis (or a server that speaks
// its protocol and runs Lua scripts, such as Valkey), through the caller's
// [github.com/redis/go-redis/v9] client: a *redis.Client,
// *redis.ClusterClient, *redis.Ring or failover client, with whatever TLS,
// authentication, pooling, retries and tracing the caller gave it.
//
// Save's compare-and-swap is one Lua script (cas.lua), which Redis runs
// atomically: it writes next, or deletes the key when next is the zero
// Summary, only if the digest stored beside the summary is prev's, so two
// processes racing on one chat cannot both win and no reader ever sees half
// of a summary.
//
// # Key layout
//
// A chat's summary is the hash at prefix+chatID ([DefaultKeyPrefix] unless
// [WithKeyPrefix] says otherwise; see [Store.Key]), with two fields:
//
//   - summary: the [recap.Summary] as JSON,
//     {"text":"…","lastMessageId":"m2","covered":["m1","m2"],"digests":["0a1b2c3d","~4e5f6a7b"]},
//     without "digests" when the summary has none;
//   - digest: the hex SHA-256 of a length-prefixed encoding of the text,
//     the boundary, the number of covered IDs and each ID, and, if there
//     are any, the number of [recap.Summary.Digests] and each digest (the
//     digest of examples/sqlstore).
//
// A hash written by the redisstore before Summary.Digests has no
// "digests", and its digest is the one a summary without Digests has now:
// it loads with no Digests, a Save with it as prev succeeds, and nothing
// needs migrating. The older redisstore still reads the hashes of
// summaries without Digests, but a summary saved with Digests (recap gives
// every summary Digests at its next save) is to it an error for Load and a
// conflict for Save, never overwritten: during a rolling upgrade, the old
// processes fail on the chats that the new ones have saved.
//
// A chat without a summary has no key. Chat IDs go into keys verbatim, not
// hashed: Redis keys are binary-safe, so every Go string makes a key; the
// fixed prefix keeps keys unambiguous; and the keys stay legible, so that
// redis-cli can find a chat's summary, SCAN MATCH 'recap:summary:*' lists
// them and a user's chats can be deleted by ID. In a Redis Cluster, a chat
// ID holding a hash tag ({…}) is placed by the tag; every command touches
// one key, so nothing breaks.
//
// The script compares digests, not the encoded values: a Save sends prev
// as 64 bytes, not whole (Covered alone is about 20 KB for 1,000 messages),
// the script reads 64 bytes of the key, not all of it, and the comparison
// is by the Summary's fields, exactly [recap.Summary.Equal] (a nil and an
// empty Covered alike), not by the bytes of one JSON encoder. Load checks
// the digest against the summary field and reports a value that does not
// match it (written by something else) as an error.
//
// JSON cannot hold invalid UTF-8: Save rejects a text, boundary, covered
// ID or digest that is not valid UTF-8 with an error (never
// [recap.ErrConflict]) rather than store a changed copy. IDs that came
// from JSON are valid, and so are the digests recap makes.
//
// # Expiry
//
// Summaries do not expire unless [WithTTL] is given; then every successful
// Save sets its key to expire after the TTL. An expired summary is rebuilt
// from a client's full history, but a client that sends back its payloads
// instead of full histories loses what the summary covered (see
// [WithTTL]).
//
// # Failures
//
// Save is one round trip (EVALSHA); after the server lost its script cache
// (a restart, SCRIPT FLUSH) the first Save sends EVAL after the NOSCRIPT
// reply, the script not having run. A Save or Load called with a done ctx
// sends nothing, and Save never reports [recap.ErrConflict] once ctx is
// done. If ctx ends or the connection fails while the script is in flight,
// the error leaves open whether it ran: a Load tells. go-redis resends a
// command after some network failures (its MaxRetries); if the first run
// had written next, the resent script finds next, not prev, and Save
// reports a conflict although next is stored. A caller that reloads on a
// conflict, as recap's Compressor does, finds its own summary and goes on.
package redisstore
