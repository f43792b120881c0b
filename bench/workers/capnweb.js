// Cold start, Cap'n Web: it speaks over a MessagePort, which the page sends first.
import { newMessagePortRpcSession, RpcTarget } from "capnweb";

class Api extends RpcTarget {
  add(a, b) {
    return a + b;
  }
}
addEventListener("message", ({ data }) => data instanceof MessagePort && newMessagePortRpcSession(data, new Api()), { once: true });
