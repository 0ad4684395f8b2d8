package notify

import (
	"context"
	"errors"
	"fmt"
	"net/textproto"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPublicReason: a failed send is described to the merchant by a fixed
// sentence per kind of failure; nothing of the sender's error text (here
// the recipient's address) gets through.
func TestPublicReason(t *testing.T) {
	const addr = "alva@example.com"
	badRecipient := (&SMTPSender{Addr: "127.0.0.1:1", From: "shop@example.com"}).Send(context.Background(), Message{Recipient: "alva at example"})
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no sender", fmt.Errorf("%w %s", errNoSender, ChannelSMS), "no sender is configured for the channel"},
		{"bad recipient (SMTP sender)", badRecipient, "the recipient address is not valid"},
		{"timeout", fmt.Errorf("gateway: %w", context.DeadlineExceeded), "the send timed out"},
		{"interrupted", context.Canceled, "the send was interrupted"},
		{"permanent SMTP reply", fmt.Errorf("send: %w", &textproto.Error{Code: 550, Msg: "<" + addr + "> unknown"}), "the mail server refused the message (reply 550)"},
		{"transient SMTP reply", &textproto.Error{Code: 421, Msg: "busy"}, "the mail server deferred the message (reply 421)"},
		{"anything else", errors.New("dial 10.1.2.3:25 for " + addr), "the sender could not deliver the message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, publicReason(tc.err)); diff != "" {
				t.Errorf("publicReason(%v) (-want +got):\n%s", tc.err, diff)
			}
		})
	}
}
