//! The request ids a receiver handled: each request is handled once, however often it comes.

use std::collections::BTreeSet;

use super::error::SessionError;
use crate::packet::RequestId;

/// What to do with an incoming request id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestCheck {
    /// Not handled yet: handle it.
    New,
    /// Handled already (a resend): its answer is queued or was acknowledged; drop it.
    Handled,
}

/// The request ids handled lately: the newest, and which of the `window` ids up to it were.
/// A peer with at most `window` calls pending has every id at or before `newest - window`
/// answered, so those are handled; an id more than `window` past the newest was never issued.
#[derive(Debug, Clone)]
pub struct HandledRequests {
    window: u32,
    newest: Option<RequestId>,
    handled: BTreeSet<RequestId>,
}

impl HandledRequests {
    /// A record for a peer with at most `window` calls pending.
    #[must_use]
    pub fn new(window: usize) -> Self {
        HandledRequests {
            window: u32::try_from(window.max(1))
                .unwrap_or(u32::MAX)
                .min(1 << 30),
            newest: None,
            handled: BTreeSet::new(),
        }
    }

    /// Whether `request` is new, handled, or forged (too far ahead). Changes nothing.
    pub fn check(&self, request: RequestId) -> Result<RequestCheck, SessionError> {
        let Some(newest) = self.newest else {
            // The peer's first ids count from 0.
            return if request < self.window {
                Ok(RequestCheck::New)
            } else {
                Err(SessionError::ForgedRequest(request))
            };
        };
        let ahead = request.wrapping_sub(newest);
        if ahead != 0 && ahead <= self.window {
            return Ok(RequestCheck::New);
        }
        let behind = newest.wrapping_sub(request);
        if behind < self.window {
            return Ok(if self.handled.contains(&request) {
                RequestCheck::Handled
            } else {
                RequestCheck::New
            });
        }
        if behind < 1 << 31 {
            Ok(RequestCheck::Handled)
        } else {
            Err(SessionError::ForgedRequest(request))
        }
    }

    /// Records `request` as handled (after [`HandledRequests::check`] said it is new).
    pub fn record(&mut self, request: RequestId) {
        let newest = match self.newest {
            Some(newest) if request.wrapping_sub(newest) > self.window => newest,
            _ => request,
        };
        self.newest = Some(newest);
        self.handled.insert(request);
        let window = self.window;
        self.handled.retain(|&id| newest.wrapping_sub(id) < window);
    }

    /// Ids remembered (at most the window).
    #[must_use]
    pub fn len(&self) -> usize {
        self.handled.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_id_is_new_once_and_far_ids_are_forged() {
        let mut handled = HandledRequests::new(4);
        assert_eq!(handled.check(9), Err(SessionError::ForgedRequest(9)));
        for id in [1u32, 0, 3, 2] {
            assert_eq!(handled.check(id), Ok(RequestCheck::New));
            handled.record(id);
            assert_eq!(handled.check(id), Ok(RequestCheck::Handled));
        }
        assert_eq!(handled.check(8), Err(SessionError::ForgedRequest(8)));
        assert_eq!(handled.check(7), Ok(RequestCheck::New));
        handled.record(7);
        assert_eq!(handled.check(5), Ok(RequestCheck::New));
        assert_eq!(handled.check(0), Ok(RequestCheck::Handled));
        assert!(handled.len() <= 4);
    }

    #[test]
    fn ids_wrap() {
        let mut handled = HandledRequests::new(8);
        handled.newest = Some(u32::MAX - 1);
        for id in [u32::MAX, 0, 1] {
            assert_eq!(handled.check(id), Ok(RequestCheck::New));
            handled.record(id);
        }
        assert_eq!(handled.check(0), Ok(RequestCheck::Handled));
        assert_eq!(handled.check(2), Ok(RequestCheck::New));
    }
}
