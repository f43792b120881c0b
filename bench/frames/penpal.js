// Cold start in an iframe, penpal 7: a connection to the parent window (its handshake says when both listen).
import { connect, WindowMessenger } from "penpal";

connect({ messenger: new WindowMessenger({ remoteWindow: parent, allowedOrigins: [location.origin] }), methods: { add: (a, b) => a + b } });
