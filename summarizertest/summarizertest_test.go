package summarizertest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/recapgo/recap"
	"github.com/recapgo/recap/summarizertest"
)

// errCut is the reference adapter's truncation error.
var errCut = errors.New("ref: summary truncated")

// ref is a reference adapter of a made-up API: POST {"prompt"} answers
// {"text","stop"}; a fault breaks it one way.
type ref struct {
	url   string
	fault string
}

func (r ref) Summarize(ctx context.Context, req recap.SummarizeRequest) (string, error) {
	p := recap.RenderPrompt(req, "")
	body, _ := json.Marshal(map[string]string{"prompt": p.System + "\n" + p.User})
	if r.fault == "dropsMessages" {
		body, _ = json.Marshal(map[string]string{"prompt": req.Previous})
	}
	if r.fault == "ignoresContext" {
		ctx = context.Background()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader(string(body)))
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK && r.fault != "ignoresStatus" {
		return "", fmt.Errorf("ref: status %d", resp.StatusCode)
	}
	var out struct{ Text, Stop string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && r.fault != "ignoresStatus" {
		return "", err
	}
	if out.Stop == "length" && r.fault != "keepsTruncated" {
		return "", errCut
	}
	if r.fault == "keepsEmpty" || r.fault == "keepsTruncated" || r.fault == "ignoresStatus" {
		return strings.TrimSpace(out.Text), nil
	}
	if strings.TrimSpace(out.Text) == "" {
		return "", fmt.Errorf("ref: %w", recap.ErrEmptySummary)
	}
	return strings.TrimSpace(out.Text), nil
}

func model(fault string) summarizertest.Model {
	return summarizertest.Model{
		Answer: func(s summarizertest.Scenario, text string) (int, string) {
			stop := "stop"
			switch s {
			case summarizertest.Truncated:
				stop = "length"
			case summarizertest.ServerError:
				return 500, `{"error":"overloaded"}`
			}
			b, _ := json.Marshal(map[string]string{"text": text, "stop": stop})
			return 200, string(b)
		},
		New: func(t *testing.T, baseURL string) recap.Summarizer {
			return ref{url: baseURL + "/v1/summarize", fault: fault}
		},
		Truncated: errCut,
	}
}

func TestReference(t *testing.T) {
	summarizertest.Run(t, model(""))
}

// brokenAdapters each break the contract one way; catches is the subtest
// that must fail.
var brokenAdapters = map[string]string{
	"dropsMessages":  "Reply",
	"keepsEmpty":     "Empty",
	"keepsTruncated": "Truncated",
	"ignoresStatus":  "ServerError",
}

// TestBrokenAdapterHelper runs the suite on the broken adapter named by
// SUMMARIZERTEST_BROKEN; it is run by TestSuiteCatchesBrokenAdapters, in a
// child process, and skipped otherwise.
func TestBrokenAdapterHelper(t *testing.T) {
	fault := os.Getenv("SUMMARIZERTEST_BROKEN")
	if fault == "" {
		t.Skip("run by TestSuiteCatchesBrokenAdapters")
	}
	summarizertest.Run(t, model(fault))
}

// TestSuiteCatchesBrokenAdapters checks that the suite can fail.
func TestSuiteCatchesBrokenAdapters(t *testing.T) {
	for fault, catches := range brokenAdapters {
		t.Run(fault, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenAdapterHelper$", "-test.v")
			cmd.Env = append(os.Environ(), "SUMMARIZERTEST_BROKEN="+fault)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed an adapter that %s:\n%s", fault, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBrokenAdapterHelper/"+catches) {
				t.Errorf("subtest %s did not fail for %s:\n%s", catches, fault, out)
			}
		})
	}
}
