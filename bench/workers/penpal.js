// Cold start, penpal 7: a connection to the page over the worker's scope, the API its methods.
import { connect, WorkerMessenger } from "penpal";

connect({ messenger: new WorkerMessenger({ worker: self }), methods: { add: (a, b) => a + b } });
