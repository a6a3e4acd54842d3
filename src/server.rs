//! The event loop: one mio Poll, reserved and slab-keyed tokens, timers. The only mio user.
