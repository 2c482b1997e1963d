mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

fn check_symbols(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_symbols(fixture));
}

fn check_refs(fixture: &str, expect: Expect) {
    expect.assert_eq(&render_references(fixture));
}

fn check_chunks(fixture: &str, budget: ChunkBudget, expect: Expect) {
    expect.assert_eq(&render_chunks(fixture, budget));
}

#[test]
fn classes_interfaces_traits_and_enums() {
    check_symbols(
        r#"
//- src/Models/Shape.php
<?php
declare(strict_types=1);

namespace App\Models;

const VERSION = "1.0";

/**
 * A shape.
 */
#[Entity]
abstract class Shape extends Base implements HasArea
{
    use Greets;

    public const MAX = 3, MIN = 1;
    /** Number of sides. */
    private int $sides = 0;
    protected static ?string $label = null;
    public $a, $b;

    public function __construct(private readonly int $n)
    {
        $this->sides = $n;
    }

    /** The area. */
    abstract public function area(): float;

    public static function make(): static
    {
        return new static(3);
    }
}

interface HasArea
{
    public function area(): float;
}

trait Greets
{
    public function hello(): string { return "hi"; }
}

enum Suit: string
{
    case Hearts = 'H';
    case Spades = 'S';

    public function color(): string { return 'Red'; }
}

function helper(int $x): int
{
    return $x;
}

$handler = function (int $x): int { return $x; };
$double = fn($x) => $x * 2;
"#,
        expect![[r#"
            src/Models/Shape.php (module App\Models, 0 parse errors)
              constant App\Models\VERSION [6-6] `const VERSION = "1.0"`
              class App\Models\Shape [11-34] `#[Entity] abstract class Shape extends Base implements HasArea` doc: A shape.
                constant App\Models\Shape\MAX [16-16] `MAX = 3`
                constant App\Models\Shape\MIN [16-16] `MIN = 1`
                field App\Models\Shape\sides [18-18] `private int $sides = 0` doc: Number of sides.
                field App\Models\Shape\label [19-19] `protected static ?string $label = null`
                field App\Models\Shape\a [20-20] `$a`
                field App\Models\Shape\b [20-20] `$b`
                constructor App\Models\Shape\__construct [22-25] `public function __construct(private readonly int $n)`
                method App\Models\Shape\area [28-28] `abstract public function area(): float` doc: The area.
                method App\Models\Shape\make [30-33] `public static function make(): static`
              interface App\Models\HasArea [36-39] `interface HasArea`
                method App\Models\HasArea\area [38-38] `public function area(): float`
              trait App\Models\Greets [41-44] `trait Greets`
                method App\Models\Greets\hello [43-43] `public function hello(): string`
              enum App\Models\Suit [46-52] `enum Suit: string`
                constant App\Models\Suit\Hearts [48-48] `case Hearts = 'H'`
                constant App\Models\Suit\Spades [49-49] `case Spades = 'S'`
                method App\Models\Suit\color [51-51] `public function color(): string`
              function App\Models\helper [54-57] `function helper(int $x): int`
              function App\Models\handler [59-59] `$handler = function (int $x): int`
              function App\Models\double [60-60] `$double = fn($x) => $x * 2`
        "#]],
    );
}

#[test]
fn no_namespace_braced_namespace_and_syntax_errors() {
    check_symbols(
        r#"
//- lib/legacy.php
<?php
class Legacy
{
    function old() {}
}

function broken( {
}

class After {}
//- lib/braced.php
<?php
namespace Vendor\Pkg {
    class Thing {}
    $make = fn() => new Thing();
}
"#,
        expect![[r#"
            lib/legacy.php (module lib/legacy, 1 parse errors)
              class Legacy [2-5] `class Legacy`
                method Legacy\old [4-4] `function old()`
              function broken [7-8] `function broken(`
              class After [10-10] `class After`
            lib/braced.php (module Vendor\Pkg, 0 parse errors)
              class Vendor\Pkg\Thing [3-3] `class Thing`
              function Vendor\Pkg\make [4-4] `$make = fn() => new Thing()`
        "#]],
    );
}

#[test]
fn references() {
    check_refs(
        r#"
//- src/Http/Controller.php
<?php
namespace App\Http;

use App\Models\Shape;
use Vendor\Lib as L;
use App\Support\{Str, Arr as A};
use function App\Support\helper;
use Countable;

class Controller extends Base implements \JsonSerializable, Countable
{
    use Logs, \App\Traits\Greets;

    public function __construct()
    {
        parent::__construct();
        $this->shape = new Shape(1);
        $other = new \App\Models\Circle();
        self::$count++;
    }

    public function show(): string
    {
        $this->shape->area();
        $this->shape?->area();
        $name = $this->shape?->name;
        Shape::make();
        strlen("x");
        \App\helper(Suit::Hearts, Shape::class);
        $anon = new class extends Base {};
        return $this->render($name);
    }
}
"#,
        expect![[r#"
            src/Http/Controller.php
              4:16 import App\Models :: Shape in <module>
              5:12 import Vendor :: Lib as L in <module>
              6:18 import App\Support :: Str in <module>
              6:23 import App\Support :: Arr as A in <module>
              7:26 import App\Support :: helper in <module>
              8:5 import Countable in <module>
              10:26 inherit Base in Controller
              10:42 inherit \JsonSerializable in Controller
              10:61 inherit Countable in Controller
              12:9 inherit Logs in Controller
              12:15 inherit \App\Traits :: Greets in Controller
              16:17 call parent :: __construct in Controller\__construct
              17:16 field_use $this :: shape in Controller\__construct
              17:28 instantiate Shape in Controller\__construct
              18:22 instantiate \App\Models :: Circle in Controller\__construct
              19:16 field_use self :: count in Controller\__construct
              24:16 field_use $this :: shape in Controller\show
              24:23 call $this->shape :: area in Controller\show
              25:16 field_use $this :: shape in Controller\show
              25:24 call $this->shape :: area in Controller\show
              26:24 field_use $this :: shape in Controller\show
              26:32 field_use $this->shape :: name in Controller\show
              27:16 call Shape :: make in Controller\show
              28:9 call strlen in Controller\show
              29:9 call \App :: helper in Controller\show
              29:27 field_use Suit :: Hearts in Controller\show
              30:35 inherit Base in Controller\show
              31:23 call $this :: render in Controller\show
        "#]],
    );
}

#[test]
fn chunks_keep_definitions_whole_and_split_big_ones() {
    let small = ChunkBudget { max_chars: 400, max_lines: 8, overlap_lines: 2 };
    check_chunks(
        r#"
//- Big.php
<?php
namespace Big;

/** A big class. */
class Big
{
    public function one(): int
    {
        return 1;
    }

    // two is long
    public function two(): int
    {
        $a = 1;
        $b = 2;
        $c = 3;
        $d = 4;
        $e = 5;
        return $a + $b + $c + $d + $e;
    }
}

function tail() {}
"#,
        small,
        expect![[r#"
            Big.php
              1-2 Big | class - | fn -
              4-10 Big\Big | class - | fn -
              12-13 Big\Big\two | class in Big[5-22] | fn after one[7-10]
              14-21 Big\Big\two | class in Big[5-22] | fn in two[13-21]
              22-22 Big\Big | class in Big[5-22] | fn after two[13-21]
              24-24 Big\tail | class after Big[5-22] | fn in tail[24-24]
        "#]],
    );
}
