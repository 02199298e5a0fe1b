//! Answers through the generated API (schemas/versions/match_v2.idl): requests answered at
//! once, later through a token, refused by the application, or dropped unanswered (refused by
//! the endpoint); each call's answer delivered once, with the call; and a message encoded once
//! for many peers, in the same bytes as encoding it for each.

use std::collections::BTreeMap;
use std::time::Duration;

use idlc_runtime::{Answer, AnswerToken, Delivery, Encoded, Refusal, SessionConfig, SessionError};
use idlc_tests::match_v2 as v2;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::sessions::{ClientV2, Server, TICK, Wire};

/// What the client was delivered for each of its `buy` calls, by the call's `call`: the
/// response's value, or the refusal's code.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Bought(u32),
    Refused(u32),
}

/// The server's game: `buy(call)` answered at once when `call % 4 == 0`, refused (code `call`)
/// when 1, later (after `call % 7` ticks) when 2, and its token dropped when 3.
#[derive(Default)]
struct Shop {
    /// The deferred buys, by the tick they are answered at.
    due: BTreeMap<u32, Vec<(AnswerToken<v2::MatchClientResponse>, v2::Buy)>>,
    /// Buys handled (each must be handled once).
    handled: BTreeMap<u32, u32>,
    /// The requests the endpoint refused by itself, as its flushes reported them.
    unanswered: Vec<u32>,
}

impl Shop {
    fn answer(
        &mut self,
        delivery: Delivery<v2::MatchClientMessage, v2::MatchServerResponse, v2::MatchServerMessage>,
    ) -> Answer<v2::MatchClientResponse, v2::MatchClientMessage> {
        let Delivery::Request(message) = delivery else {
            return Answer::None;
        };
        let v2::MatchClientMessage::Buy { request, call } = &message else {
            return Answer::None;
        };
        *self.handled.entry(call.call).or_default() += 1;
        match call.call % 4 {
            0 => Answer::Now(v2::MatchClientResponse::Buy {
                request: *request,
                value: call.call * 10,
            }),
            1 => Answer::Refuse(Refusal::new(call.call, format!("sold out ({})", call.call))),
            _ => Answer::Later(message),
        }
    }

    /// Takes the deferred buys of this tick: answered `call % 7` ticks later, or (`call % 4
    /// == 3`) dropped.
    fn defer(
        &mut self,
        tick: u32,
        deferred: Vec<(AnswerToken<v2::MatchClientResponse>, v2::MatchClientMessage)>,
    ) {
        for (token, message) in deferred {
            let v2::MatchClientMessage::Buy { call, .. } = message else {
                panic!("only buys are deferred");
            };
            if call.call % 4 == 3 {
                drop(token);
            } else {
                self.due
                    .entry(tick + call.call % 7)
                    .or_default()
                    .push((token, call));
            }
        }
    }

    /// The tokens due at `tick`, with their buys.
    fn due(&mut self, tick: u32) -> Vec<(AnswerToken<v2::MatchClientResponse>, v2::Buy)> {
        let ready: Vec<u32> = self.due.range(..=tick).map(|(t, _)| *t).collect();
        ready
            .into_iter()
            .flat_map(|t| self.due.remove(&t).unwrap_or_default())
            .collect()
    }
}

/// Buys every 2 ticks for 150 ticks over a link that loses, repeats and delays 15% of the
/// packets each way, then a clean link: every call gets exactly one answer, paired with it
/// (the value of a deferred one comes ticks later); each call is handled once; dropped tokens
/// are refused and reported once each.
#[test]
fn deferred_and_refused_answers_arrive_once_paired_with_their_calls() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    let config = SessionConfig::default();
    let mut server = Server::newest(config.clone());
    let mut client = ClientV2::newest(config);
    let (mut up, mut down) = (Wire::lossy(0.15), Wire::lossy(0.15));
    let mut shop = Shop::default();
    let mut outcomes: BTreeMap<u32, Vec<Outcome>> = BTreeMap::new();
    let mut calls = 0;
    for tick in 0..400u32 {
        let now = TICK * tick;
        let lossy = tick < 250;
        if tick < 150 && tick.is_multiple_of(2) {
            let call = v2::Buy {
                call: tick,
                item: 1,
            };
            client
                .send(v2::MatchClientMessage::Buy { request: 0, call })
                .unwrap();
            calls += 1;
        }
        for packet in client.flush(now).packets {
            up.send(&mut rng, tick, packet, lossy);
        }
        for packet in up.arrived(tick) {
            let _ = server.receive(now, &packet, |d| shop.answer(d));
        }
        shop.defer(tick, server.take_deferred());
        for (token, buy) in shop.due(tick) {
            let response = v2::MatchClientResponse::Buy {
                request: token.request(),
                value: buy.call * 10,
            };
            server.answer(token, response).unwrap();
        }
        let flushed = server.flush(now);
        shop.unanswered
            .extend(flushed.unanswered.iter().map(|&(_, request)| request));
        for packet in flushed.packets {
            down.send(&mut rng, tick, packet, lossy);
        }
        for packet in down.arrived(tick) {
            let _ = client.receive(now, &packet, |d| {
                match d {
                    Delivery::Response {
                        call: v2::MatchClientMessage::Buy { call, .. },
                        response: v2::MatchClientResponse::Buy { value, .. },
                    } => outcomes
                        .entry(call.call)
                        .or_default()
                        .push(Outcome::Bought(value)),
                    Delivery::Refused {
                        call: v2::MatchClientMessage::Buy { call, .. },
                        refusal,
                    } => outcomes
                        .entry(call.call)
                        .or_default()
                        .push(Outcome::Refused(refusal.code)),
                    _ => {}
                }
                None
            });
        }
    }
    assert_eq!(outcomes.len(), calls, "every call answered: {outcomes:?}");
    for (call, got) in &outcomes {
        let want = match call % 4 {
            0 | 2 => Outcome::Bought(call * 10),
            1 => Outcome::Refused(*call),
            _ => Outcome::Refused(Refusal::UNANSWERED),
        };
        assert_eq!(got, &vec![want], "call {call}");
    }
    assert!(shop.handled.values().all(|&n| n == 1), "{:?}", shop.handled);
    assert_eq!(shop.handled.len(), calls);
    let dropped = outcomes.keys().filter(|c| *c % 4 == 3).count();
    assert_eq!(
        shop.unanswered.len(),
        dropped,
        "each dropped token reported once"
    );
    assert_eq!(server.usage().deferred_answers, 0);
    assert_eq!(client.pending().len(), 0);
}

/// A request the closure leaves without an answer, a token not taken before the flush, and a
/// token given to another peer's endpoint: each call is refused (UNANSWERED) and reported by
/// the endpoint it belongs to. An answer to another request than its token's is an error.
#[test]
fn unanswered_requests_and_misused_tokens_are_reported() {
    let now = Duration::ZERO;
    let config = SessionConfig::default();
    let (mut server, mut other) = (
        Server::newest(config.clone()),
        Server::newest(config.clone()),
    );
    let mut client = ClientV2::newest(config);
    let buy = |call| v2::MatchClientMessage::Buy {
        request: 0,
        call: v2::Buy { call, item: 1 },
    };
    for call in 0..4 {
        client.send(buy(call)).unwrap();
    }
    for packet in client.flush(now).packets {
        // Buy 0: no answer; buys 1 to 3: later.
        server
            .receive(now, &packet, |d| match d {
                Delivery::Request(m)
                    if !matches!(&m, v2::MatchClientMessage::Buy { call, .. } if call.call == 0) =>
                {
                    Answer::Later(m)
                }
                _ => Answer::None,
            })
            .unwrap();
    }
    let mut tokens = server.take_deferred().into_iter().map(|(token, _)| token);
    let (one, two) = (tokens.next().unwrap(), tokens.next().unwrap());
    // Buy 3's token is dropped with the rest.
    drop(tokens);
    assert_eq!(server.usage().deferred_answers, 4);
    let wrong = v2::MatchClientResponse::Buy {
        request: two.request(),
        value: 1,
    };
    assert_eq!(
        server.answer(one, wrong),
        Err(SessionError::AnswerMismatch { request: 1, id: 1 })
    );
    let refusal = Refusal::new(5, "wrong shop");
    assert_eq!(
        other.refuse(two, refusal),
        Err(SessionError::ForeignToken(2))
    );
    assert!(other.flush(now).unanswered.is_empty());
    let flushed = server.flush(now);
    let mut unanswered: Vec<u32> = flushed.unanswered.iter().map(|&(_, r)| r).collect();
    unanswered.sort_unstable();
    assert_eq!(unanswered, [0, 1, 2, 3]);
    assert_eq!(server.usage().deferred_answers, 0);
    let mut refused = Vec::new();
    for packet in flushed.packets {
        client
            .receive(now, &packet, |d| {
                if let Delivery::Refused {
                    call: v2::MatchClientMessage::Buy { call, .. },
                    refusal,
                } = d
                {
                    refused.push((call.call, refusal.code));
                }
                None
            })
            .unwrap();
    }
    refused.sort_unstable();
    let code = Refusal::UNANSWERED;
    assert_eq!(refused, [(0, code), (1, code), (2, code), (3, code)]);
}

/// A Chat (its STRING aligns to the packet's bytes) and an Input encoded once and appended to
/// the packets of 60 endpoints, each after a different run of items (so at every bit offset),
/// reliably and not: the same packets as sending the values to each endpoint; each client
/// reads it.
#[test]
fn an_encoded_message_gives_the_same_packets_as_encoding_it_for_each_peer() {
    let now = Duration::ZERO;
    let config = SessionConfig::default();
    let chat = v2::MatchServerMessage::Chat(v2::Chat {
        line: 7,
        text: "gg, well played".into(),
    });
    let ping = |nonce| v2::MatchServerMessage::Ping {
        request: 0,
        call: v2::Ping { nonce },
    };
    let encoded = Encoded::new(&chat).unwrap();
    assert!(
        Encoded::<v2::DefaultEncoding, _>::new(&ping(1)).is_err(),
        "a request is per peer"
    );
    for peer in 0..60u32 {
        let mut each = Server::newest(config.clone());
        let mut once = Server::newest(config.clone());
        for endpoint in [&mut each, &mut once] {
            for n in 0..peer % 9 {
                endpoint.send(ping(n * 1000 + peer)).unwrap();
            }
        }
        each.send_reliable(chat.clone()).unwrap();
        each.send(chat.clone()).unwrap();
        once.send_encoded_reliable(&encoded).unwrap();
        once.send_encoded(&encoded).unwrap();
        let (a, b) = (each.flush(now).packets, once.flush(now).packets);
        assert_eq!(a, b, "peer {peer}");
        let mut client = ClientV2::newest(config.clone());
        let mut chats = 0;
        for packet in &b {
            client
                .receive(now, packet, |d| {
                    if d == Delivery::Message(chat.clone()) {
                        chats += 1;
                    }
                    None
                })
                .unwrap();
        }
        assert_eq!(chats, 2, "peer {peer}");
    }
}
