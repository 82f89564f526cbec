// Package tokens counts the tokens of a text as the large language models'
// tokenizers do: exactly for OpenAI's models, by estimates that err high for
// Claude and Gemini, and for whole requests (tool definitions, the framing
// of messages).
//
// A [Tiktoken] is OpenAI's tiktoken for one of the encodings whose
// vocabularies are embedded in the binary: [O200kBase] (GPT-4o and later),
// [Cl100kBase] (GPT-4, GPT-3.5), [P50kBase] and [R50kBase];
// [TiktokenForModel] picks one by model name. It counts tokens
// ([Tiktoken.CountTokens]), encodes a text into exactly the token IDs of
// tiktoken's encode_ordinary ([Tiktoken.Encode]), decodes them
// ([Tiktoken.Decode]), and cuts a text at a token boundary
// ([Tiktoken.Truncate]). Text that looks like a special token, such as
// "<|endoftext|>", is ordinary text, and invalid UTF-8 is read as a
// browser reads it (each maximal ill-formed subsequence as one U+FFFD), so
// a JavaScript client and a Go server agree.
//
// Anthropic's and Google's tokenizers are not public: [EstimatorForModel]
// returns an [Estimator] for any model name of a family this package knows,
// exact for OpenAI's models and an estimate that errs high for Claude's and
// Gemini's, with what the family adds per message and per request, and
// [Estimator.ToolTokens] estimates what a request's tool definitions cost.
// [OpenAIRequestOverhead] counts what a Chat Completions request costs
// beyond its messages.
//
// Usage:
//
//	enc, err := tokens.NewTiktoken(tokens.O200kBase)
//	if err != nil {
//		return err
//	}
//	n := enc.CountTokens("Hello, world!")    // 4
//	ids := enc.Encode("Hello, world!")       // [13225 11 2375 0]
//	text, err := enc.Decode(ids)             // "Hello, world!"
//	head := enc.Truncate("Hello, world!", 3) // "Hello, world"
//
// Every counter is a [Counter], the interface that package
// github.com/recapgo/recap measures chats with; [Truncate] cuts a text to
// at most n tokens of any Counter.
//
// The package is pure: it does no network or file I/O (the vocabularies are
// read in place from the binary, never downloaded or cached on disk), reads
// no environment, starts no goroutines and logs nothing.
package tokens
