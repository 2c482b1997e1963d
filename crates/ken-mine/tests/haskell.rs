mod common;

use common::{render_chunks, render_references, render_symbols};
use expect_test::{Expect, expect};
use ken_core::ChunkBudget;

const MODULES: &str = r#"
//- src/Data/Geo.hs
{-# LANGUAGE ScopedTypeVariables #-}
-- | Shapes and their areas.
module Data.Geo
  ( Shape(..)
  , area
  ) where

import qualified Data.Map.Strict as Map
import Data.List (sortOn, foldl')
import Data.Maybe hiding (fromJust)
import Data.Geo.Util
import Data.Geo.Types (Unit (..), HasName (nameOf))

-- | A plane shape.
data Shape = Circle Double | Rect { width :: Double, height :: Double }
  deriving (Show, Eq)

newtype Name = Name String
  deriving stock Show

type Radius = Double

-- | An expression tree, as a GADT.
data Expr a where
  Lit :: Int -> Expr Int
  Add :: Expr Int -> Expr Int -> Expr Int

-- | Things with an area.
class (Show a) => HasArea a where
  areaOf :: a -> Double
  perimeter :: a -> Double

instance HasArea Shape where
  areaOf (Circle r) = pi * r * r
  areaOf (Rect w h) = w * h
  perimeter _ = 0

-- | The area of a shape.
area :: Shape -> Double
area s = areaOf s + scaleBy 2 1

-- | Factorial, by equations.
fact :: Int -> Int
fact 0 = 1
fact n = n * fact (n - 1)

total :: [Shape] -> Double
total = foldl' (\acc s -> acc + area s) 0

byArea :: [Shape] -> Map.Map Double Shape
byArea shapes = Map.fromList [(area s, s) | s <- shapes]

describe :: Shape -> String
describe shape = case shape of
  Circle r -> label "circle" r
  Rect {} -> show . area $ shape
  where
    label kind r = kind ++ " of radius " ++ show r

unit :: Shape
unit = Rect { width = 1, height = 1 }

maxSides :: Int
maxSides = 12
//- src/Data/Geo/Util.hs
module Data.Geo.Util where

scaleBy :: Double -> Double -> Double
scaleBy k x = k * x
//- app/Main.hs
module Main (main) where

import Data.Geo (Shape (..), area)
import qualified Data.Geo as G
import Data.IORef as Ref

main :: IO ()
main = do
  greet
  ref <- Ref.newIORef (Circle 1.0)
  shape <- Ref.readIORef ref
  print (area shape)
  print $ G.total [Rect 1 2]
  print (3 `G.scaleBy` 4)
  mapM_ print =<< G.sorted
  where
    greet = putStrLn "shapes"
"#;

fn check(render: fn(&str) -> String, expect: Expect) {
    expect.assert_eq(&render(MODULES));
}

#[test]
fn data_types_classes_instances_and_equations() {
    check(
        render_symbols,
        expect![[r#"
        src/Data/Geo.hs (module Data.Geo, 0 parse errors)
          class Data.Geo.Shape [15-16] `data Shape = Circle Double | Rect`
            constructor Data.Geo.Shape.Circle [15-15] `Circle Double`
            constructor Data.Geo.Shape.Rect [15-15] `Rect`
              field Data.Geo.Shape.Rect.width [15-15] `width :: Double`
              field Data.Geo.Shape.Rect.height [15-15] `height :: Double`
          class Data.Geo.Name [18-19] `newtype Name = Name String`
            constructor Data.Geo.Name.Name [18-18] `Name String`
          class Data.Geo.Radius [21-21] `type Radius = Double`
          class Data.Geo.Expr [24-26] `data Expr a` doc: An expression tree, as a GADT.
            constructor Data.Geo.Expr.Lit [25-25] `Lit :: Int -> Expr Int`
            constructor Data.Geo.Expr.Add [26-26] `Add :: Expr Int -> Expr Int -> Expr Int`
          interface Data.Geo.HasArea [29-31] `class (Show a) => HasArea a` doc: Things with an area.
            method Data.Geo.HasArea.areaOf [30-30] `areaOf :: a -> Double`
            method Data.Geo.HasArea.perimeter [31-31] `perimeter :: a -> Double`
            method Data.Geo.Shape.areaOf [34-35] `areaOf (Circle r) = pi * r * r`
            method Data.Geo.Shape.perimeter [36-36] `perimeter _ = 0`
          function Data.Geo.area [39-40] `area s = areaOf s + scaleBy 2 1` doc: The area of a shape.
          function Data.Geo.fact [43-45] `fact 0 = 1` doc: Factorial, by equations.
          function Data.Geo.total [47-48] `total = foldl' (\acc s -> acc + area s) 0`
          function Data.Geo.byArea [50-51] `byArea shapes = Map.fromList [(area s, s) | s <- shapes]`
          function Data.Geo.describe [53-58] `describe shape = case shape of`
            function Data.Geo.describe.label [58-58] `label kind r = kind ++ " of radius " ++ show r`
          constant Data.Geo.unit [60-61] `unit = Rect { width = 1, height = 1 }`
          constant Data.Geo.maxSides [63-64] `maxSides = 12`
        src/Data/Geo/Util.hs (module Data.Geo.Util, 0 parse errors)
          function Data.Geo.Util.scaleBy [3-4] `scaleBy k x = k * x`
        app/Main.hs (module Main, 0 parse errors)
          function Main.main [7-17] `main = do`
    "#]],
    );
}

#[test]
fn applications_imports_and_instances() {
    check(
        render_references,
        expect![[r#"
            src/Data/Geo.hs
              8:18 import Data.Map.Strict as Map in <module>
              9:19 import Data.List :: sortOn in <module>
              9:27 import Data.List :: foldl' in <module>
              10:8 import Data.Maybe :: * in <module>
              11:8 import Data.Geo.Util :: * in <module>
              12:24 import Data.Geo.Types :: Unit in <module>
              12:35 import Data.Geo.Types :: HasName in <module>
              12:44 import Data.Geo.Types :: nameOf in <module>
              16:13 inherit Show in Shape
              16:19 inherit Eq in Shape
              19:18 inherit Show in Name
              29:8 inherit Show in HasArea
              33:10 inherit HasArea in Shape
              40:10 call areaOf in area
              40:21 call scaleBy in area
              45:14 call fact in fact
              48:9 call foldl' in total
              48:33 call area in total
              51:21 call Map :: fromList in byArea
              51:32 call area in byArea
              55:15 call label in describe
              56:14 call show in describe
              56:21 call area in describe
              58:45 call show in describe.label
              61:8 instantiate Rect in unit
            src/Data/Geo/Util.hs
            app/Main.hs
              3:18 import Data.Geo :: Shape in <module>
              3:30 import Data.Geo :: area in <module>
              4:18 import Data.Geo as G in <module>
              5:8 import Data.IORef :: * in <module>
              5:8 import Data.IORef as Ref in <module>
              9:3 call greet in main
              10:14 call Ref :: newIORef in main
              10:24 instantiate Circle in main
              11:16 call Ref :: readIORef in main
              12:3 call print in main
              12:10 call area in main
              13:3 call print in main
              13:13 call G :: total in main
              14:3 call print in main
              14:15 call G :: scaleBy in main
              15:3 call mapM_ in main
              17:13 call putStrLn in main
        "#]],
    );
}

#[test]
fn chunks_follow_declarations() {
    check(
        |f| render_chunks(f, ChunkBudget::default()),
        expect![[r#"
        src/Data/Geo.hs
          1-15 Data.Geo.Shape | class - | fn -
          15-16 Data.Geo.Shape | class in Shape[15-16] | fn in Rect[15-15]
          18-19 Data.Geo.Name | class in Name[18-19] | fn in Name[18-18]
          21-23 Data.Geo.Radius | class in Radius[21-21] | fn after Name[18-18]
          24-28 Data.Geo.Expr | class in Expr[24-26] | fn after Name[18-18]
          29-38 Data.Geo.HasArea | class in HasArea[29-31] | fn after Add[26-26]
          39-39 Data.Geo.area | class after HasArea[29-31] | fn in area[39-40]
          40-42 Data.Geo | class after HasArea[29-31] | fn in area[39-40]
          43-43 Data.Geo.fact | class after HasArea[29-31] | fn in fact[43-45]
          44-45 Data.Geo.fact | class after HasArea[29-31] | fn in fact[43-45]
          47-47 Data.Geo.total | class after HasArea[29-31] | fn in total[47-48]
          48-48 Data.Geo.total | class after HasArea[29-31] | fn in total[47-48]
          50-50 Data.Geo.byArea | class after HasArea[29-31] | fn in byArea[50-51]
          51-51 Data.Geo.byArea | class after HasArea[29-31] | fn in byArea[50-51]
          53-53 Data.Geo.describe | class after HasArea[29-31] | fn in describe[53-58]
          54-58 Data.Geo.describe | class after HasArea[29-31] | fn in describe[53-58]
          60-60 Data.Geo.unit | class after HasArea[29-31] | fn after label[58-58]
          61-61 Data.Geo.unit | class after HasArea[29-31] | fn after label[58-58]
          63-63 Data.Geo.maxSides | class after HasArea[29-31] | fn after label[58-58]
          64-64 Data.Geo.maxSides | class after HasArea[29-31] | fn after label[58-58]
        src/Data/Geo/Util.hs
          1-5 Data.Geo.Util.scaleBy | class - | fn -
        app/Main.hs
          1-18 Main.main | class - | fn -
    "#]],
    );
}
