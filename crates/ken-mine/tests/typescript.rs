mod common;

use common::{render_chunks, render_references, render_symbols, render_types};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

fn check_types(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_types(fixture));
}

fn check_chunks(fixture: &str, budget: ChunkBudget, expect: Expect) {
    expect.assert_eq(&render_chunks(fixture, budget));
}

#[test]
fn classes_interfaces_enums_and_members() {
    check_symbols(
        r#"
//- src/shapes/index.ts
/** Default scale. */
export const DEFAULT_SCALE = 2 as const;
const LIMITS = { max: 10 };

/** Something with an area. */
export interface Shape<T = number> extends Named {
  /** The area. */
  area(): T;
  readonly sides?: number;
}

export enum Color {
  Red,
  Green = "green",
}

const enum Flags { A = 1 }

// A base.
export abstract class Base<T> implements Shape<T> {
  protected static readonly MAX = 3;
  name: string = "";
  private cache = new Map<string, T>();

  // Builds a base.
  constructor(private readonly scale: number) {}

  abstract area(): T;

  describe<U extends T>(value: U): string {
    return `${value}`;
  }

  static Nested = class {
    run() {}
  };
}

class Square extends Base<number> {
  area(): number { return 1; }
}

namespace Geometry.Internal {
  export class Point {}
  function helper() {}
}

type Alias = { a: number };
"#,
        expect![[r#"
            src/shapes/index.ts (module src/shapes, 0 parse errors)
              constant src/shapes.DEFAULT_SCALE [2-2] `export const DEFAULT_SCALE = 2 as const` doc: Default scale.
              constant src/shapes.LIMITS [3-3] `const LIMITS = { max: 10 }`
              interface src/shapes.Shape [6-10] `export interface Shape<T = number> extends Named` doc: Something with an area.
                method src/shapes.Shape.area [8-8] `area(): T` doc: The area.
                field src/shapes.Shape.sides [9-9] `readonly sides?: number`
              enum src/shapes.Color [12-15] `export enum Color`
                constant src/shapes.Color.Red [13-13] `Red`
                constant src/shapes.Color.Green [14-14] `Green = "green"`
              enum src/shapes.Flags [17-17] `const enum Flags`
                constant src/shapes.Flags.A [17-17] `A = 1`
              class src/shapes.Base [20-37] `export abstract class Base<T> implements Shape<T>` doc: A base.
                field src/shapes.Base.MAX [21-21] `protected static readonly MAX = 3`
                field src/shapes.Base.name [22-22] `name: string = ""`
                field src/shapes.Base.cache [23-23] `private cache = new Map<string, T>()`
                constructor src/shapes.Base.constructor [26-26] `constructor(private readonly scale: number)` doc: Builds a base.
                method src/shapes.Base.area [28-28] `abstract area(): T`
                method src/shapes.Base.describe [30-32] `describe<U extends T>(value: U): string`
                field src/shapes.Base.Nested [34-36] `static Nested = class`
                  method src/shapes.Base.Nested.run [35-35] `run()`
              class src/shapes.Square [39-41] `class Square extends Base<number>`
                method src/shapes.Square.area [40-40] `area(): number`
              module src/shapes.Geometry.Internal [43-46] `namespace Geometry.Internal`
                class src/shapes.Geometry.Internal.Point [44-44] `export class Point`
                function src/shapes.Geometry.Internal.helper [45-45] `function helper()`
              interface src/shapes.Alias [48-48] `type Alias`
        "#]],
    );
}

#[test]
fn overloads_arrow_functions_and_ambient_declarations() {
    check_symbols(
        r#"
//- lib/parse.ts
/** Parses a number. */
export function parse(x: number): number;
export function parse(x: string): string;
export function parse(x: any): any {
  return x;
}

function local(a: string): void;
function local(a: any) {}

class Reader {
  read(n: number): string;
  read(s: string): string;
  read(x: any): string { return ""; }
}

// Doubles.
export const double = <T,>(x: T): T[] => [x, x];
const handler = async function (req: Request): Promise<void> {};
let later = () => {};
const NOT_A_CONSTANT = () => 1;
const createApp = ((...args: unknown[]): App => ensureRenderer().createApp(...args));
export const Button = forwardRef<HTMLButtonElement, Props>(({ label }, ref) => render(label, ref));

declare function external(x: number): void;
declare module "legacy-lib" {
  export function old(): void;
}
export declare class Declared {
  method(): void;
}
"#,
        expect![[r#"
            lib/parse.ts (module lib/parse, 0 parse errors)
              function lib/parse.parse [2-2] `export function parse(x: number): number` doc: Parses a number.
              function lib/parse.parse [3-3] `export function parse(x: string): string`
              function lib/parse.parse [4-6] `export function parse(x: any): any`
              function lib/parse.local [8-8] `function local(a: string): void`
              function lib/parse.local [9-9] `function local(a: any)`
              class lib/parse.Reader [11-15] `class Reader`
                method lib/parse.Reader.read [12-12] `read(n: number): string`
                method lib/parse.Reader.read [13-13] `read(s: string): string`
                method lib/parse.Reader.read [14-14] `read(x: any): string`
              function lib/parse.double [18-18] `export const double = <T,>(x: T): T[] => [x, x]` doc: Doubles.
              function lib/parse.handler [19-19] `const handler = async function (req: Request): Promise<void>`
              function lib/parse.later [20-20] `let later = ()`
              function lib/parse.NOT_A_CONSTANT [21-21] `const NOT_A_CONSTANT = () => 1`
              function lib/parse.createApp [22-22] `const createApp = ((...args: unknown[]): App => ensureRenderer().creat…`
              function lib/parse.Button [23-23] `export const Button = forwardRef<HTMLButtonElement, Props>((`
              function lib/parse.external [25-25] `declare function external(x: number): void`
              module lib/parse.legacy-lib [26-28] `declare module "legacy-lib"`
                function lib/parse.legacy-lib.old [27-27] `export function old(): void`
              class lib/parse.Declared [29-31] `export declare class Declared`
                method lib/parse.Declared.method [30-30] `method(): void`
        "#]],
    );
}

#[test]
fn decorators() {
    check_symbols(
        r#"
//- app/user.component.ts
@Component({
  selector: "app-user",
})
export class UserComponent {
  /** The user's name. */
  @Input() name: string;

  @Output()
  changed = new EventEmitter<string>();

  // Handles clicks.
  @HostListener("click", ["$event"])
  onClick(event: Event): void {}
}

/** Injectable service. */
@Injectable()
class Service {}
"#,
        expect![[r#"
            app/user.component.ts (module app/user, 0 parse errors)
              class app/user.UserComponent [4-14] `class UserComponent`
                field app/user.UserComponent.name [6-6] `@Input() name: string` doc: The user's name.
                field app/user.UserComponent.changed [8-9] `@Output()`
                method app/user.UserComponent.onClick [12-13] `onClick(event: Event): void` doc: Handles clicks.
              class app/user.Service [17-18] `@Injectable() class Service` doc: Injectable service.
        "#]],
    );
}

#[test]
fn tsx_components() {
    check_symbols(
        r#"
//- web/App.tsx
import React from "react";

/** Props of the app. */
interface AppProps { title: string }

// The app.
export const App = ({ title }: AppProps) => {
  const onClick = () => {};
  return <Layout title={title}><Button onClick={onClick} /></Layout>;
};

export default function Page<T>(props: { items: T[] }) {
  return <ul>{props.items.map((i) => <li>{String(i)}</li>)}</ul>;
}

export class Counter extends React.Component<AppProps> {
  state = { count: 0 };
  render() {
    return <span>{this.state.count}</span>;
  }
}
"#,
        expect![[r#"
            web/App.tsx (module web/App, 0 parse errors)
              interface web/App.AppProps [4-4] `interface AppProps` doc: Props of the app.
                field web/App.AppProps.title [4-4] `title: string`
              function web/App.App [7-10] `export const App = (` doc: The app.
              function web/App.Page [12-14] `export default function Page<T>(props`
              class web/App.Counter [16-21] `export class Counter extends React.Component<AppProps>`
                field web/App.Counter.state [17-17] `state = { count: 0 }`
                method web/App.Counter.render [18-20] `render()`
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    check_symbols(
        r#"
//- broken.ts
export function good(): number {
  return 1;
}

function half(a: number) {
  return a +;
}

interface Broken {
  field: ;
}

class After {
  method(): void {}
}
"#,
        expect![[r#"
            broken.ts (module broken, 2 parse errors)
              function broken.good [1-3] `export function good(): number`
              function broken.half [5-7] `function half(a: number)`
              interface broken.Broken [9-11] `interface Broken`
                field broken.Broken.field [10-10] `field`
              class broken.After [13-15] `class After`
                method broken.After.method [14-14] `method(): void`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/service.ts
import axios, { AxiosError as Err } from "axios";
import type { Config } from "./config";
import * as utils from "../utils";
import fs = require("fs");
const { join } = require("path");
export { parse as parseConfig } from "./parse";

export class ApiService extends BaseService<Config> implements Disposable, events.Emitter {
  private client = axios.create();

  async get<T>(url: string): Promise<T> {
    const res = await this.client.get<T>(url);
    utils.log(res.status);
    return res.data as T;
  }

  dispose(): void {
    throw new Err("disposed");
  }
}

interface Extended extends Base, ns.Other<string> {}

function main() {
  const svc = new ApiService();
  svc.get<string>(join("a", "b")).then(console.log);
}

//- web/View.tsx
import { Card } from "./Card";

export function View() {
  return (
    <Card.Frame title="x">
      <Card onSelect={() => select(1)} />
      <div className="plain" />
    </Card.Frame>
  );
}
"#,
        expect![[r#"
            src/service.ts
              1:8 import axios :: axios in <module>
              1:17 import axios :: AxiosError as Err in <module>
              2:15 import ./config :: Config in <module>
              3:8 import ../utils :: * as utils in <module>
              4:21 import fs as fs in <module>
              5:9 import path :: join in <module>
              6:10 import ./parse :: parse as parseConfig in <module>
              8:33 inherit BaseService in ApiService
              8:64 inherit Disposable in ApiService
              8:76 inherit events :: Emitter in ApiService
              9:26 call axios :: create in ApiService.client
              12:28 field_use this :: client in ApiService.get
              12:35 call this.client :: get in ApiService.get
              13:11 call utils :: log in ApiService.get
              13:19 field_use res :: status in ApiService.get
              14:16 field_use res :: data in ApiService.get
              18:15 instantiate Err in ApiService.dispose
              22:28 inherit Base in Extended
              22:34 inherit ns :: Other in Extended
              25:19 instantiate ApiService in main
              26:7 call svc :: get in main
              26:19 call join in main
              26:35 call svc.get<string>() :: then in main
              26:48 field_use console :: log in main
            web/View.tsx
              1:10 import ./Card :: Card in <module>
              5:6 call Card :: Frame in View
              6:8 call Card in View
              6:29 call select in View
        "#]],
    );
}

#[test]
fn destructuring_reads_members() {
    check_refs(
        r#"
//- src/scheduler.ts
export class TestScheduler {
  run() {
    const { runMode, now: at } = this;
    const { actions } = this.scheduler;
    const { a } = { a: 1 };
  }
}
"#,
        expect![[r#"
            src/scheduler.ts
              3:13 field_use this :: runMode in TestScheduler.run
              3:22 field_use this :: now in TestScheduler.run
              4:13 field_use this.scheduler :: actions in TestScheduler.run
              4:30 field_use this :: scheduler in TestScheduler.run
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- big.ts
import fs from "fs";

/** A big class. */
export class Big {
  one(): number {
    return 1;
  }

  // comment about two
  two(): number {
    const a = 1;
    const b = 2;
    const c = 3;
    const d = 4;
    const e = 5;
    const f = 6;
    return a + b + c + d + e + f;
  }
}

export const tail = (): null => null;
"#,
        small,
        expect![[r#"
            big.ts
              1-1 big | class - | fn -
              3-4 big.Big | class - | fn -
              4-7 big.Big | class in Big[4-19] | fn -
              9-16 big.Big.two | class in Big[4-19] | fn after one[5-7]
              17-19 big.Big | class in Big[4-19] | fn in two[10-18]
              21-21 big.tail | class after Big[4-19] | fn in tail[21-21]
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- src/net/client.ts
import { Session, makePool, Pool } from "./sessions";

export class Client {
  timeout: number = 1.0;
  private readonly adapter?: Adapter;
  static shared = new Registry();

  constructor(private session: Session, public readonly name: string, retries?: number) {
    this.pool = makePool(retries);
    this.cache = new Map<string, Entry>();
    this.current = session;
  }

  open(url: string = "/"): Promise<Connection> {
    const conn = this.pool.connect();
    let tracker: Tracker = createTracker(), spare = new Spare();
    const { a, b } = split();
    return conn;
  }

  get size(): number { return 0; }
}

export function build(url?: string): Client {
  const s = new Session();
  return new Client(s, url);
}

function helper(x: Foo.Bar, ...rest: Item[]): void {}

export const connect = async (host: string): Promise<Client> => build(host);
const local = (n: number): Pool => makePool(n);

type Handler = (req: Request) => Response;

interface Store {
  get(key: string): Entry;
  size: number;
}

//- src/ui/view.tsx
export function View(props: ViewProps): JSX.Element {
  const store = useStore();
  return <Panel store={store} />;
}
"#,
        expect![[r#"
            src/net/client.ts
              Client.open -> Promise<Connection>
              Client.size -> number
              build -> Client
              helper -> void
              connect -> Promise<Client>
              local -> Pool
              Store.get -> Entry
              4: timeout : number (in Client)
              5: adapter : Adapter (in Client)
              6: shared : Registry (in Client)
              8: session : Session (in Client.constructor)
              8: name : string (in Client.constructor)
              8: retries : number (in Client.constructor)
              9: this.pool = call makePool (in Client.constructor)
              10: this.cache : Map (in Client.constructor)
              11: this.current = name session (in Client.constructor)
              14: url : string (in Client.open)
              15: conn = call this.pool.connect (in Client.open)
              16: tracker : Tracker (in Client.open)
              16: spare : Spare (in Client.open)
              24: url : string (in build)
              25: s : Session (in build)
              29: x : Foo.Bar (in helper)
              31: host : string (in connect)
              32: n : number (in local)
              38: size : number (in Store)
            src/ui/view.tsx
              View -> JSX.Element
              1: props : ViewProps (in View)
              2: store = call useStore (in View)
        "#]],
    );
}

#[test]
fn type_aliases() {
    check_symbols(
        r#"
//- src/types.ts
/** What a button accepts. */
export type ButtonProps = { label: string; onClick(): void };
type Handler = (e: Event) => void;
namespace Api {
  export type Id = string;
}
function local() {
  type Scratch = number;
}
"#,
        expect![[r#"
            src/types.ts (module src/types, 0 parse errors)
              interface src/types.ButtonProps [2-2] `export type ButtonProps` doc: What a button accepts.
              interface src/types.Handler [3-3] `type Handler = (e: Event) => void`
              module src/types.Api [4-6] `namespace Api`
                interface src/types.Api.Id [5-5] `export type Id = string`
              function src/types.local [7-9] `function local()`
                interface src/types.local.Scratch [8-8] `type Scratch = number`
        "#]],
    );
}

#[test]
fn a_long_doc_comment_is_cut_into_windows_named_after_what_it_documents() {
    let small = ChunkBudget { max_chars: 400, max_lines: 5, overlap_lines: 1 };
    check_chunks(
        r#"
//- forkJoin.ts
/**
 * Waits for every source to complete,
 * then emits their last values together.
 *
 * ## Example
 *
 * forkJoin([a, b]).subscribe(console.log);
 */
export function forkJoin(sources: unknown[]): void {
  return;
}

class Scheduler {
  /**
   * Orders actions by due time,
   * then by creation order,
   * so that equal times run
   * in the order they were made.
   */
  sort(): void {}
}
"#,
        small,
        expect![[r#"
            forkJoin.ts
              1-4 forkJoin.forkJoin | class - | fn -
              5-9 forkJoin.forkJoin | class - | fn -
              9-11 forkJoin.forkJoin | class - | fn in forkJoin[9-11]
              13-13 forkJoin.Scheduler | class in Scheduler[13-21] | fn after forkJoin[9-11]
              14-18 forkJoin.Scheduler.sort | class in Scheduler[13-21] | fn after forkJoin[9-11]
              18-20 forkJoin.Scheduler.sort | class in Scheduler[13-21] | fn after forkJoin[9-11]
              20-21 forkJoin.Scheduler | class in Scheduler[13-21] | fn in sort[20-20]
        "#]],
    );
}
