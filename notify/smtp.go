package notify

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"net/smtp"
	"strings"

	"golang.org/x/text/language"
)

// errBadRecipient is the failure of a message whose recipient address
// does not parse.
var errBadRecipient = errors.New("recipient address is not valid")

// SMTPSender sends EMAIL notifications through an SMTP server with
// net/smtp. It uses STARTTLS when the server offers it; Auth (for example
// smtp.PlainAuth) is refused by net/smtp over an unencrypted connection to
// anything but localhost, which keeps credentials off the wire.
type SMTPSender struct {
	// Addr is the server, "host:port".
	Addr string
	// From is the sender address, e.g. "Shop <noreply@shop.example>".
	From string
	// Auth, when set, authenticates to the server.
	Auth smtp.Auth
}

// Send implements Sender. The context is checked before sending; net/smtp
// itself takes none.
func (s *SMTPSender) Send(ctx context.Context, m Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	from, err := mail.ParseAddress(s.From)
	if err != nil {
		return fmt.Errorf("smtp sender: From: %w", err)
	}
	to, err := mail.ParseAddress(m.Recipient)
	if err != nil {
		return fmt.Errorf("smtp sender: %w: %w", errBadRecipient, err)
	}
	msg, err := composeMail(from, to, m)
	if err != nil {
		return err
	}
	return smtp.SendMail(s.Addr, s.Auth, from.Address, []string{to.Address}, msg)
}

// composeMail builds a plain-text UTF-8 message. Header values are encoded
// words, so no text of a message can inject a header.
func composeMail(from, to *mail.Address, m Message) ([]byte, error) {
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("smtp sender: subject contains a line break")
	}
	var b strings.Builder
	b.WriteString("From: " + from.String() + "\r\n")
	b.WriteString("To: " + to.String() + "\r\n")
	b.WriteString("Subject: " + mime.QEncoding.Encode("utf-8", m.Subject) + "\r\n")
	b.WriteString("MIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: text/plain; charset=utf-8\r\n")
	b.WriteString("Content-Transfer-Encoding: 8bit\r\n")
	if t, err := language.Parse(m.Language); err == nil && m.Language != "" {
		b.WriteString("Content-Language: " + t.String() + "\r\n")
	}
	b.WriteString("\r\n")
	body := strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body + "\r\n")
	return []byte(b.String()), nil
}
