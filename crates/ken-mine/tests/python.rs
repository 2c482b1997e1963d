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
fn classes_methods_decorators_and_nesting() {
    check_symbols(
        r#"
//- pkg/models.py
"""Models of the package."""
MAX_SIZE = 10
_private = 3

class Base:
    """A base."""
    kind: str = "base"

    def __init__(self, name):
        self.name = name

    @property
    def title(self) -> str:
        '''The title.

        Longer text.
        '''
        return self.name.title()

    class Inner(object):
        def deep(self): pass

def helper(x, *args, **kwargs):
    def local():
        return x
    return local

square = lambda v: v * v
"#,
        expect![[r#"
            pkg/models.py (module pkg.models, 0 parse errors)
              constant pkg.models.MAX_SIZE [2-2] `MAX_SIZE = 10`
              class pkg.models.Base [5-21] `class Base` doc: A base.
                field pkg.models.Base.kind [7-7] `kind: str = "base"`
                constructor pkg.models.Base.__init__ [9-10] `def __init__(self, name)`
                method pkg.models.Base.title [12-18] `def title(self) -> str` doc: The title.⏎⏎Longer text.
                class pkg.models.Base.Inner [20-21] `class Inner(object)`
                  method pkg.models.Base.Inner.deep [21-21] `def deep(self)`
              function pkg.models.helper [23-26] `def helper(x, *args, **kwargs)`
                function pkg.models.helper.local [24-25] `def local()`
              function pkg.models.square [28-28] `square = lambda v: v * v`
        "#]],
    );
}

#[test]
fn syntax_errors_keep_what_was_recovered() {
    check_symbols(
        r#"
//- broken.py
def good():
    return 1

def bad(:
    return

class After:
    def method(self): pass
"#,
        expect![[r#"
            broken.py (module broken, 1 parse errors)
              function broken.good [1-2] `def good()`
              function broken.bad [4-5] `def bad(`
              class broken.After [7-8] `class After`
                method broken.After.method [8-8] `def method(self)`
        "#]],
    );
}

#[test]
fn overloads_and_init_module() {
    check_symbols(
        r#"
//- src/pkg/__init__.py
from typing import overload

@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x
"#,
        expect![[r#"
            src/pkg/__init__.py (module pkg, 0 parse errors)
              function pkg.parse [3-4] `def parse(x: int) -> int`
              function pkg.parse [5-6] `def parse(x: str) -> str`
              function pkg.parse [7-8] `def parse(x)`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- app/session.py
import os.path
import numpy as np
from . import utils
from .models import Base as B, Other
from typing import *

class Session(B, abc.ABC, Generic[T], metaclass=Meta):
    def send(self, request):
        resp = self.adapter.send(request)
        other = Other(resp)
        super().send(request)
        return utils.wrap(np.array(other.value))

def main():
    Session().send(os.path.join("a", "b"))
"#,
        expect![[r#"
            app/session.py
              1:8 import os.path in <module>
              2:8 import numpy as np in <module>
              3:15 import . :: utils in <module>
              4:21 import .models :: Base as B in <module>
              4:32 import .models :: Other in <module>
              5:20 import typing :: * in <module>
              7:15 inherit B in Session
              7:18 inherit abc :: ABC in Session
              7:27 inherit Generic in Session
              9:21 field_use self :: adapter in Session.send
              9:29 call self.adapter :: send in Session.send
              10:17 call Other in Session.send
              11:9 call super in Session.send
              11:17 call super() :: send in Session.send
              12:22 call utils :: wrap in Session.send
              12:30 call np :: array in Session.send
              12:42 field_use other :: value in Session.send
              15:5 call Session in main
              15:15 call Session() :: send in main
              15:23 field_use os :: path in main
              15:28 call os.path :: join in main
        "#]],
    );
}

#[test]
fn exception_classes_caught_and_raised_are_uses() {
    check_refs(
        r#"
//- app/client.py
from .errors import HTTPError, Timeout, Retry

def get(url):
    try:
        send(url)
    except HTTPError:
        pass
    except (Timeout, errors.Closed) as e:
        raise Retry from e
    except Retry as err:
        raise err
"#,
        expect![[r#"
            app/client.py
              1:21 import .errors :: HTTPError in <module>
              1:32 import .errors :: Timeout in <module>
              1:41 import .errors :: Retry in <module>
              5:9 call send in get
              6:12 field_use HTTPError in get
              8:13 field_use Timeout in get
              8:29 field_use errors :: Closed in get
              9:15 field_use Retry in get
              10:12 field_use Retry in get
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- mod.py
import os

A = 1

class Big:
    """Doc."""

    def one(self):
        return 1

    def two(self):
        x = 1
        y = 2
        return x + y

    # comment about three
    def three(self):
        a = 1
        b = 2
        c = 3
        d = 4
        e = 5
        f = 6
        g = 7
        h = 8
        return a

def tail():
    pass
"#,
        small,
        expect![[r#"
            mod.py
              1-3 mod.A | class - | fn -
              5-9 mod.Big | class in Big[5-26] | fn -
              11-14 mod.Big.two | class in Big[5-26] | fn in two[11-14]
              16-23 mod.Big.three | class in Big[5-26] | fn after two[11-14]
              24-26 mod.Big.three | class in Big[5-26] | fn in three[17-26]
              28-29 mod.tail | class after Big[5-26] | fn in tail[28-29]
        "#]],
    );
}

#[test]
fn type_facts_for_receiver_inference() {
    check_types(
        r#"
//- app/client.py
from .sessions import Session

class Client:
    timeout: float = 1.0
    adapter: "Adapter"

    def __init__(self, session: Session, retries: int = 3):
        self.session = session
        self.pool = make_pool(retries)
        self.cache: Optional[Cache] = None

    def open(self) -> "Connection":
        conn = self.pool.connect()
        with Lock() as guard:
            guard.hold()
        return conn

def build(url=None) -> Client:
    s = Session()
    return Client(s)
"#,
        expect![[r#"
            app/client.py
              Client.open -> Connection
              build -> Client
              4: timeout : float (in Client)
              5: adapter : Adapter (in Client)
              7: session : Session (in Client.__init__)
              7: retries : int (in Client.__init__)
              8: self.session = name session (in Client.__init__)
              9: self.pool = call make_pool (in Client.__init__)
              10: self.cache : Optional[Cache] (in Client.__init__)
              13: conn = call self.pool.connect (in Client.open)
              14: guard = call Lock (in Client.open)
              19: s = call Session (in build)
        "#]],
    );
}

#[test]
fn type_alias_statements() {
    check_symbols(
        r#"
//- pkg/types.py
type Alias = list[int]
type Pair[T] = tuple[T, T]
class Box:
    type Inner = int
"#,
        expect![[r#"
            pkg/types.py (module pkg.types, 0 parse errors)
              class pkg.types.Alias [1-1] `type Alias = list[int]`
              class pkg.types.Pair [2-2] `type Pair[T] = tuple[T, T]`
              class pkg.types.Box [3-4] `class Box`
                class pkg.types.Box.Inner [4-4] `type Inner = int`
        "#]],
    );
}
