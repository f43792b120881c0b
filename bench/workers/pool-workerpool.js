// A worker of the pool benchmark, workerpool's.
import workerpool from "workerpool";
import { work } from "../pool-work.js";

workerpool.worker({ work, tiny: () => 1 });
