package webhook

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The Standard Webhooks scheme's published test vector.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignTestVector(t *testing.T) {
	got, err := Sign([]string{vectorSecret}, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != vectorSignature {
		t.Errorf("Sign = %q, want %q", got, vectorSignature)
	}
}

func TestSignTwoSecrets(t *testing.T) {
	got, err := Sign([]string{vectorSecret, secretB}, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Sign([]string{secretB}, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	if want := vectorSignature + " " + second; got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
}

func TestVerify(t *testing.T) {
	signedAt := time.Unix(vectorTimestamp, 0)
	headers := func(id, ts, sig string) http.Header {
		h := http.Header{}
		for k, v := range map[string]string{HeaderID: id, HeaderTimestamp: ts, HeaderSignature: sig} {
			if v != "" {
				h.Set(k, v)
			}
		}
		return h
	}
	ts := strconv.Itoa(vectorTimestamp)
	second, err := Sign([]string{secretB}, vectorID, signedAt, []byte(vectorBody))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		body    string
		header  http.Header
		now     time.Time
		secrets []string
		want    error
	}{
		{"test vector", vectorBody, headers(vectorID, ts, vectorSignature), signedAt, []string{vectorSecret}, nil},
		{"secret without prefix", vectorBody, headers(vectorID, ts, vectorSignature), signedAt, []string{vectorSecret[len(SecretPrefix):]}, nil},
		{"within tolerance", vectorBody, headers(vectorID, ts, vectorSignature), signedAt.Add(DefaultTolerance), []string{vectorSecret}, nil},
		{"too old", vectorBody, headers(vectorID, ts, vectorSignature), signedAt.Add(DefaultTolerance + time.Second), []string{vectorSecret}, ErrTimestamp},
		{"from the future", vectorBody, headers(vectorID, ts, vectorSignature), signedAt.Add(-DefaultTolerance - time.Second), []string{vectorSecret}, ErrTimestamp},
		{"body changed", `{"test": 2432232315}`, headers(vectorID, ts, vectorSignature), signedAt, []string{vectorSecret}, ErrSignature},
		{"id changed", vectorBody, headers("msg_other", ts, vectorSignature), signedAt, []string{vectorSecret}, ErrSignature},
		{"timestamp changed", vectorBody, headers(vectorID, strconv.Itoa(vectorTimestamp+1), vectorSignature), signedAt, []string{vectorSecret}, ErrSignature},
		{"other secret", vectorBody, headers(vectorID, ts, vectorSignature), signedAt, []string{secretB}, ErrSignature},
		{"unknown version", vectorBody, headers(vectorID, ts, "v2"+vectorSignature[2:]), signedAt, []string{vectorSecret}, ErrSignature},
		{"second of two signatures", vectorBody, headers(vectorID, ts, "v1,bm90IGl0 "+second), signedAt, []string{secretB}, nil},
		{"either of two secrets", vectorBody, headers(vectorID, ts, second), signedAt, []string{vectorSecret, secretB}, nil},
		{"no secret", vectorBody, headers(vectorID, ts, vectorSignature), signedAt, nil, ErrSignature},
		{"no id", vectorBody, headers("", ts, vectorSignature), signedAt, []string{vectorSecret}, ErrMissingHeaders},
		{"no timestamp", vectorBody, headers(vectorID, "", vectorSignature), signedAt, []string{vectorSecret}, ErrMissingHeaders},
		{"malformed timestamp", vectorBody, headers(vectorID, "yesterday", vectorSignature), signedAt, []string{vectorSecret}, ErrMissingHeaders},
		{"no signature", vectorBody, headers(vectorID, ts, ""), signedAt, []string{vectorSecret}, ErrMissingHeaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify([]byte(tt.body), tt.header, tt.now, tt.secrets...)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestBody(t *testing.T) {
	tests := []struct {
		name, payload, want string
		wantErr             bool
	}{
		{"members follow site and subject", `{"a":1,"b":"x"}`, `{"type":"parcel.changed","timestamp":"2025-03-14T09:30:00Z","data":{"site":"s1","subject":"CP1","a":1,"b":"x"}}`, false},
		{"empty object", ` { } `, `{"type":"parcel.changed","timestamp":"2025-03-14T09:30:00Z","data":{"site":"s1","subject":"CP1"}}`, false},
		{"not an object", `[1]`, "", true},
		{"not JSON", `{"a":`, "", true},
		{"empty", ``, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := parcelEvent(t, "evt_1", "s1", "CP1", "DELIVERED")
			ev.Payload = []byte(tt.payload)
			got, err := body(ev)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
