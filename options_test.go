package recap

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/recapgo/recap/tokens"
)

func TestNewInvalidOptions(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		opt    Option
		want   string // the option named in the error
	}{
		{"ZeroTrigger", "a zero trigger would summarize every turn", WithTriggerTokens(0), "WithTriggerTokens"},
		{"NegativeTrigger", "negative thresholds make no sense", WithTriggerTokens(-5), "WithTriggerTokens"},
		{"ZeroWindow", "the window counts the current turn, so at least 1", WithWindowConversations(0), "WithWindowConversations"},
		{"NegativeWindow", "never clamped", WithWindowConversations(-1), "WithWindowConversations"},
		{"NilCounter", "a nil counter would panic on first count", WithTokenCounter(nil), "WithTokenCounter"},
		{"ToolRole", "a tool message cannot carry a summary", WithSummaryRole(RoleTool), "WithSummaryRole"},
		{"UnknownRole", "unknown roles are rejected", WithSummaryRole("narrator"), "WithSummaryRole"},
		{"NegativeTimeout", "0 means none; negative is a mistake", WithSummarizeTimeout(-time.Second), "WithSummarizeTimeout"},
		{"NegativeOverhead", "overhead is added tokens", WithMessageOverhead(-1), "WithMessageOverhead"},
		{"NilOption", "a nil Option is a caller bug, reported", nil, "nil Option"},
		{"NegativeMedia", "an attachment costs tokens, never gives them", WithMediaTokens("image/*", -1), "WithMediaTokens"},
		{"MediaNotAType", "a pattern without a slash is no media type", WithMediaTokens("png", 85), "WithMediaTokens"},
		{"MediaInnerWildcard", "only a subtype may be a wildcard", WithMediaTokens("*/png", 85), "WithMediaTokens"},
		{"MediaEmpty", "an empty pattern matches nothing", WithMediaTokens(" ", 85), "WithMediaTokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(nil, nil, tt.opt)
			if c != nil || !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("%s: New = %v, %v; want ErrInvalidOption", tt.reason, c, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "recap: ") {
				t.Errorf("%s: error %q does not name %s", tt.reason, err, tt.want)
			}
		})
	}
}

func TestNewDefaultsAndLastWins(t *testing.T) {
	c, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.trigger != DefaultTriggerTokens || c.cfg.window != DefaultWindowConversations ||
		c.cfg.role != DefaultSummaryRole || c.cfg.overhead != DefaultMessageOverhead || c.cfg.timeout != 0 {
		t.Errorf("defaults: %+v", c.cfg)
	}
	if tc, ok := c.cfg.counter.(*tokens.Tiktoken); !ok || tc.Encoding() != tokens.O200kBase {
		t.Errorf("default counter is %T, want the o200k_base tokens.Tiktoken", c.cfg.counter)
	}
	c, err = New(nil, nil, WithTriggerTokens(5), WithTriggerTokens(7))
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.trigger != 7 {
		t.Errorf("of two WithTriggerTokens the last must win: got %d", c.cfg.trigger)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		prefix  string
		env     map[string]string
		trigger int
		window  int
		wantErr string // a substring of the error, or "" for none
	}{
		{name: "Unset", reason: "no variables, no options: the defaults stand",
			prefix: "VITE_", env: nil, trigger: DefaultTriggerTokens, window: DefaultWindowConversations},
		{name: "SeedNames", reason: "the seed client's .env names are read with prefix VITE_",
			prefix: "VITE_", env: map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "2500", "VITE_SUMMARY_WINDOW_CONVERSATIONS": "4"},
			trigger: 2500, window: 4},
		{name: "OtherPrefix", reason: "variables of another prefix are ignored",
			prefix: "RECAP_", env: map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "2500", "RECAP_SUMMARY_WINDOW_CONVERSATIONS": "3"},
			trigger: DefaultTriggerTokens, window: 3},
		{name: "Spaces", reason: "surrounding spaces, common in .env files, are trimmed",
			prefix: "", env: map[string]string{"SUMMARY_TRIGGER_TOKENS": " 42 "}, trigger: 42, window: DefaultWindowConversations},
		{name: "NotANumber", reason: "a bad value names the variable",
			prefix: "VITE_", env: map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": "1k"}, wantErr: `VITE_SUMMARY_TRIGGER_TOKENS="1k"`},
		{name: "OutOfRange", reason: "an out-of-range value names the variable too",
			prefix: "VITE_", env: map[string]string{"VITE_SUMMARY_WINDOW_CONVERSATIONS": "0"}, wantErr: `VITE_SUMMARY_WINDOW_CONVERSATIONS="0"`},
		{name: "Empty", reason: "a set but empty variable is not a number",
			prefix: "VITE_", env: map[string]string{"VITE_SUMMARY_TRIGGER_TOKENS": ""}, wantErr: `VITE_SUMMARY_TRIGGER_TOKENS=""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			opts, err := OptionsFromEnv(tt.prefix, lookup)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalidOption) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("%s: err = %v, want ErrInvalidOption naming %s", tt.reason, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tt.reason, err)
			}
			c, err := New(nil, nil, opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := [2]int{c.cfg.trigger, c.cfg.window}
			if diff := cmp.Diff([2]int{tt.trigger, tt.window}, got); diff != "" {
				t.Errorf("%s: [trigger window] mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
	if _, err := OptionsFromEnv("", nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("nil lookup: err = %v, want ErrInvalidOption", err)
	}
}

func TestWithMediaTokens(t *testing.T) {
	img := func(mediaType string) Message {
		return Message{ID: "m", Role: RoleUser, Parts: []Part{{Type: PartFile, MediaType: mediaType, Filename: "f"}}}
	}
	tests := []struct {
		reason string
		opts   []Option
		msg    Message
		want   int // tokens of the attachment
	}{
		{"an attachment counts the default, which errs high", nil, img("image/png"), DefaultMediaTokens},
		{"a type's wildcard applies to its subtypes", []Option{WithMediaTokens("image/*", 85)}, img("image/jpeg"), 85},
		{"an exact type wins over its wildcard", []Option{WithMediaTokens("image/png", 100), WithMediaTokens("image/*", 85)}, img("image/png"), 100},
		{"media types are matched without case and parameters", []Option{WithMediaTokens("Image/PNG", 100)}, img("image/png; name=x"), 100},
		{"* applies to what no other rule matches", []Option{WithMediaTokens("*", 7), WithMediaTokens("image/*", 85)}, img("application/pdf"), 7},
		{"a later rule for the same pattern replaces an earlier one", []Option{WithMediaTokens("image/*", 85), WithMediaTokens("image/*", 170)}, img("image/gif"), 170},
		{"an attachment without a media type counts as any", []Option{WithMediaTokens("*", 9)}, img(""), 9},
		{"two attachments count twice", []Option{WithMediaTokens("*", 9)}, Message{ID: "m", Role: RoleUser, Parts: []Part{{Type: PartFile}, {Type: PartFile}}}, 18},
	}
	for _, tt := range tests {
		c, err := New(nil, nil, append([]Option{WithTokenCounter(TokenCounterFunc(func(string) int { return 0 }))}, tt.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.tokens(nil, []Message{tt.msg}); got != tt.want {
			t.Errorf("%s: %d tokens, want %d", tt.reason, got, tt.want)
		}
	}
}
