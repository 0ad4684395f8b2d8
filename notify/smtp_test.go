package notify

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
)

// fakeSMTP accepts one connection, speaks just enough SMTP for net/smtp
// and sends the transcript of the message (envelope and data) on the
// returned channel.
func fakeSMTP(t *testing.T) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	out := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			out <- "accept: " + err.Error()
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		var got strings.Builder
		reply := func(s string) { c.Write([]byte(s + "\r\n")) }
		reply("220 fake ESMTP")
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				out <- got.String()
				return
			}
			cmd := strings.ToUpper(strings.TrimSpace(line))
			switch {
			case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
				reply("250 fake")
			case strings.HasPrefix(cmd, "MAIL FROM"), strings.HasPrefix(cmd, "RCPT TO"):
				got.WriteString(strings.TrimSpace(line) + "\n")
				reply("250 ok")
			case cmd == "DATA":
				reply("354 go on")
				for {
					l, err := r.ReadString('\n')
					if err != nil || l == ".\r\n" {
						break
					}
					got.WriteString(l)
				}
				reply("250 queued")
			case cmd == "QUIT":
				reply("221 bye")
				out <- got.String()
				return
			default:
				reply("502 not implemented")
			}
		}
	}()
	return ln.Addr().String(), out
}

func TestSMTPSender(t *testing.T) {
	addr, got := fakeSMTP(t)
	s := &SMTPSender{Addr: addr, From: "Demo Store <noreply@shop.example>"}
	err := s.Send(context.Background(), Message{
		Recipient: "alva@example.com", Subject: "Ditt paket är på väg",
		Body:     "Your parcel TN1 is out for delivery.\nTrack it: https://portal.example/p/tt_1",
		Language: "sv",
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := <-got
	for _, want := range []string{
		"MAIL FROM:<noreply@shop.example>",
		"RCPT TO:<alva@example.com>",
		"To: <alva@example.com>",
		"Subject: =?utf-8?q?Ditt_paket_=C3=A4r_p=C3=A5_v=C3=A4g?=",
		"Content-Type: text/plain; charset=utf-8",
		"Content-Language: sv\r\n",
		"Your parcel TN1 is out for delivery.\r\nTrack it: https://portal.example/p/tt_1",
	} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
}

func TestSMTPSenderRefusesBadInput(t *testing.T) {
	s := &SMTPSender{Addr: "127.0.0.1:1", From: "noreply@shop.example"}
	for _, m := range []Message{
		{Recipient: "not an address", Subject: "x"},
		{Recipient: "a@example.com", Subject: "x\r\nBcc: evil@example.com"},
	} {
		if err := s.Send(context.Background(), m); err == nil {
			t.Errorf("Send(%+v) succeeded", m)
		}
	}
}
