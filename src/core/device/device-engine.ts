// A device's engine: what rxcuda keeps of a device below the public Device. It owns the native
// device and its backend, the sticky error its lanes share, its open lanes, the completion points
// that follow them, the pinned blocks kept for reuse, and what it knows of its peers; it makes the
// lanes and events of rxcuda's own. Memory, streams, kernels and graphs work on it.
import type { Backend, DeviceProperties, NativeDevice } from '../native/types.js';
import { PinnedCache } from '../memory/pinned-cache.js';
import { Faults } from '../queue/faults.js';
import { completionCommand } from '../queue/host-steps.js';
import { OpenLanes } from '../queue/open-lanes.js';
import type { StreamEngine } from '../queue/stream-engine.js';
import { CompletionPoints } from './completion-points.js';
import { EventEngine } from './event-engine.js';

/** One device's state and operations below the public Device. */
export class DeviceEngine {
  /** The native classes of the device's backend. */
  readonly backend: Backend;
  readonly native: NativeDevice;
  /** Facts about the device, read once (the public Device's `properties`). */
  readonly properties: DeviceProperties;
  /** The device's sticky error, shared by its lanes. */
  readonly faults: Faults;
  /** The lanes of every stream of the device not closed yet, rxcuda's own included. */
  readonly openLanes = new OpenLanes();
  /** Streams for completion points that follow work spread over streams. */
  readonly completionPoints = new CompletionPoints(this);
  /** Pinned blocks kept for reuse; see pinned-cache.ts. */
  readonly pinnedCache = new PinnedCache((ptrs) =>
    this.completionPoints.whenQuiet(() => {
      for (const ptr of ptrs) this.backend.freeHost(this.native, ptr);
    }),
  );
  /** Which devices this one reaches directly, asked once per peer. */
  readonly peers = new PeerAccess();
  readonly #newLane: () => StreamEngine;
  /** The public Device whose engine this is: what `memory.device` gives, and how messages name it. */
  readonly face: Peer;

  /**
   * @param face the public Device this is the engine of.
   * @param newLane makes a lane of rxcuda's own: the lane of a new Stream, which Device makes.
   */
  constructor(face: Peer, ordinal: number, backend: Backend, newLane: () => StreamEngine) {
    this.face = face;
    this.backend = backend;
    this.native = new backend.Device(ordinal);
    this.properties = Object.freeze(this.native.properties());
    this.faults = new Faults(this.native.poison?.bind(this.native), () => this.openLanes.all(), backend.kind === 'cuda');
    this.#newLane = newLane;
  }

  /** Whether this is a CUDA device or the host device. */
  get kind(): 'cuda' | 'host' {
    return this.backend.kind;
  }

  /** How messages name the device: its face's name (`device 0`, `the host device`). */
  toString(): string {
    return String(this.face);
  }

  /** The lanes of the device's open streams (completion points wait for them). */
  liveLanes(): StreamEngine[] {
    return this.openLanes.live();
  }

  /**
   * Records a sticky error, which every later call then throws. A host device (broken by a CPU
   * kernel's sticky CudaError) also stops its streams' work as a GPU's context stops.
   */
  recordFailure(error: unknown): void {
    this.faults.record(error);
  }

  /** Records a sticky error and rethrows any error as it is. */
  fail(error: unknown): never {
    this.faults.fail(error);
  }

  /** Throws the sticky error, if there is one. */
  checkUsable(): void {
    this.faults.check();
  }

  /** A lane of rxcuda's own (completion points), made without the public checks. */
  newLane(): StreamEngine {
    return this.#newLane();
  }

  /**
   * Calls `done(status)` on the main thread when the work given to `lane` (one of this device's)
   * so far has finished, queued work included. Works on closed lanes too (rxcuda's own bookkeeping
   * uses it after a close), through a completion point behind the lane's last work.
   */
  afterWork(lane: StreamEngine, done: (status: number, error?: unknown) => void): void {
    if (lane.tail) this.completionPoints.after([lane.tail], undefined, done);
    else lane.run(completionCommand(lane, done));
  }

  /**
   * Whether this device reaches `peer`'s memory directly, asked of the driver once per pair (a
   * driver error breaks this device): what Device.canAccessPeer answers, and a peer copy asks.
   */
  reachesPeer(peer: DeviceEngine): boolean {
    return this.peers.between(this.face, peer.face, (error) => this.fail(error));
  }

  /** An event of rxcuda's own, made without the public checks. */
  newEvent(): EventEngine {
    return new EventEngine(this, false);
  }
}

// Peer access between devices of one backend: asked of the driver once per pair, both ways, and
// said once, in a warning, for a pair whose copies the driver stages through host memory.

/** A device as peer access sees it. */
export interface Peer {
  readonly engine: { readonly native: NativeDevice; readonly peers: PeerAccess };
  toString(): string;
}

/** One device's knowledge of its peers. */
export class PeerAccess {
  readonly #direct = new Map<Peer, boolean>();
  readonly #warned = new Set<Peer>();

  /**
   * Whether `self` (the device this belongs to) reaches `peer`'s memory directly, enabled both
   * ways on the first ask; `fail` hears a driver error.
   */
  between(self: Peer, peer: Peer, fail: (error: unknown) => never): boolean {
    let direct = this.#direct.get(peer);
    if (direct === undefined) {
      try {
        direct = self.engine.native.enablePeerAccess(peer.engine.native) && peer.engine.native.enablePeerAccess(self.engine.native);
      } catch (error) {
        fail(error);
      }
      this.#direct.set(peer, direct);
      peer.engine.peers.#direct.set(self, direct);
    }
    return direct;
  }

  /** Says once per pair of devices that their copies are staged (the driver found no peer access). */
  warnStaged(self: Peer, peer: Peer): void {
    if (this.#direct.get(peer) !== false || this.#warned.has(peer)) return;
    this.#warned.add(peer);
    peer.engine.peers.#warned.add(self);
    process.emitWarning(`Copies between ${self} and ${peer} are staged through host memory: the hardware gives them no peer access`, {
      type: 'RxcudaWarning',
      code: 'RXCUDA_PEER_STAGED',
    });
  }
}
