package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/recapgo/recap"
)

// stdinName is how messages name standard input as the chat file.
const stdinName = "standard input"

// readChat reads the chat file at path, or standard input from stdin when
// path is "-", and decodes it in format (see decodeChat). name is how
// messages name the chat: path, or "standard input". Its errors name the
// chat once and have no "recap: " prefix. An input that is empty or only
// white space, and an empty array, are errors that say so. data is what
// was read.
func readChat(path string, stdin io.Reader, format string) (msgs []recap.Message, detected, name string, data []byte, err error) {
	if path == stdinFile {
		name = stdinName
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, "", name, nil, fmt.Errorf("read %s: %w", name, err)
		}
	} else {
		name = path
		if data, err = os.ReadFile(path); err != nil {
			return nil, "", name, nil, err // "open PATH: ..."
		}
	}
	msgs, detected, err = decodeChat(data, format)
	switch {
	case errors.Is(err, errEmptyInput):
		return nil, "", name, nil, fmt.Errorf("%s is empty: want a JSON array of messages", name)
	case err != nil:
		return nil, "", name, nil, fmt.Errorf("%s: %w", name, err)
	case len(msgs) == 0:
		return nil, "", name, nil, fmt.Errorf("%s has no messages", name)
	}
	return msgs, detected, name, data, nil
}
