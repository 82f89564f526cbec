package anthropic

import (
	"context"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/recapgo/recap"
)

// CountTokens counts, on Anthropic's free token-counting endpoint (POST
// /v1/messages/count_tokens), the input tokens of a request of payload:
// params, which names the model and may hold the request's tools, tool
// choice and thinking settings, with its System and Messages set from
// payload (see ToMessages; params' own System and Messages are replaced).
// The count is exact for that request, as the model counts it.
//
// It takes a context and can fail, so it is not a recap.TokenCounter: feed
// what it returns to a [recap.Calibrator], which corrects the counter a
// Compressor uses:
//
//	n, err := anthropic.CountTokens(ctx, client, sdk.MessageCountTokensParams{Model: model, Tools: tools}, res.Payload)
//	if err == nil {
//		cal.Observe(string(model), recap.Usage{Payload: res.Payload, Reported: n})
//	}
//
// Tokens of tools and other request settings are part of the count: take
// them off as Usage.Fixed, or count a request without them.
func CountTokens(ctx context.Context, client sdk.Client, params sdk.MessageCountTokensParams, payload []recap.Message, opts ...option.RequestOption) (int, error) {
	system, msgs, err := ToMessages(payload, WithoutCacheBreakpoint())
	if err != nil {
		return 0, err
	}
	params.System = sdk.MessageCountTokensParamsSystemUnion{OfTextBlockArray: system}
	params.Messages = msgs
	res, err := client.Messages.CountTokens(ctx, params, opts...)
	if err != nil {
		return 0, fmt.Errorf("anthropic: count tokens: %w", err)
	}
	return int(res.InputTokens), nil
}

// ReportedTokens returns the input tokens that a response's usage says
// were billed, whether read from the prompt cache, written to it or
// neither: what a [recap.Usage]'s Reported is for Anthropic.
func ReportedTokens(u sdk.Usage) int {
	return int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
}
